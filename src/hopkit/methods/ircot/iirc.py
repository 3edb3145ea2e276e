"""IIRC's special handling (IRCoT paper, Appendix B).

IIRC questions are grounded in a main passage whose linked Wikipedia pages hold the
other supporting paragraphs. (i) The main passage is always in the model's input.
(ii) Before retrieving, the model writes the titles of N Wikipedia pages (N = 3 at
test time) from the main passage and the question; each generated title is mapped
to the nearest corpus title, and all later retrieval is restricted to those pages.

Prompt (demonstrations from ``no_context_open_llm_retrieval_{codex,flan_t5}.txt``)::

    Wikipedia Title: <Main Page Title>
    <Main Paragraph Text>

    Q: The question is: '<Question>'. Generate titles of <N> Wikipedia pages that have relevant information to answer this question.
    A: ["<Title-1>", "<Title-2>", ...]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Protocol, Sequence, runtime_checkable

from rapidfuzz import fuzz, process, utils

from hopkit.errors import ConfigError
from hopkit.llm.protocol import LLM
from hopkit.methods.prompting import DemonstrationFitter
from hopkit.prompts.layout import test_block
from hopkit.options import PositiveInt, check_fields
from hopkit.parsing.titles import parse_titles
from hopkit.records import Paragraph
from hopkit.retrieval.protocol import Retriever
from hopkit.methods.ircot.parts import PARTS


@runtime_checkable
class TitleMatcher(Protocol):
    """Maps a generated page title to the nearest title of the corpus."""

    def match(self, title: str) -> str | None:
        """The corpus title nearest to ``title``, or None when nothing is near."""
        ...


class FuzzyTitleMatcher:
    """Nearest corpus title by fuzzy string similarity (rapidfuzz ``WRatio``).

    The paper maps titles with BM25 over the titles; any matcher fits the protocol.

    Args:
        titles: the corpus titles (duplicates are ignored).
        min_score: below this similarity (0-100) a title matches nothing.
    """

    def __init__(self, titles: Iterable[str], min_score: float = 50.0) -> None:
        self.titles = tuple(dict.fromkeys(titles))
        self.min_score = min_score

    @classmethod
    def from_paragraphs(cls, paragraphs: Iterable[Paragraph], min_score: float = 50.0) -> "FuzzyTitleMatcher":
        """A matcher over the titles of a corpus's paragraphs."""
        return cls((p.title for p in paragraphs), min_score)

    def match(self, title: str) -> str | None:
        """The most similar corpus title (case-insensitive), or None below ``min_score``."""
        if not title.strip() or not self.titles:
            return None
        best = process.extractOne(title, self.titles, scorer=fuzz.WRatio, processor=utils.default_process,
                                  score_cutoff=self.min_score)
        return None if best is None else str(best[0])


class RetrieverTitleMatcher:
    """Nearest corpus title by a retriever over a corpus of titles (the paper: BM25 over titles).

    Build the retriever over :meth:`title_corpus`, e.g.
    ``RetrieverTitleMatcher(BM25Retriever.build(RetrieverTitleMatcher.title_corpus(paragraphs)))``.

    Args:
        retriever: a retriever whose paragraphs are page titles.
    """

    def __init__(self, retriever: Retriever) -> None:
        self.retriever = retriever

    @staticmethod
    def title_corpus(paragraphs: Iterable[Paragraph]) -> list[Paragraph]:
        """One paragraph per distinct title, its text the title itself (ids 0, 1, ...)."""
        titles = dict.fromkeys(p.title for p in paragraphs)
        return [Paragraph(id=i, title=title, text=title) for i, title in enumerate(titles)]

    def match(self, title: str) -> str | None:
        """The title of the retriever's best hit for ``title``, or None without a hit."""
        if not title.strip():
            return None
        hits = self.retriever.retrieve(title, 1)
        return hits[0].paragraph.title if hits else None


@dataclass(frozen=True)
class IIRCConfig:
    """Options of IIRC's title step.

    Attributes:
        title_count: how many titles the model is asked for (3 at test time).
        max_tokens: generation budget of the title call.
        question_prefix: put before "The question is" (Flan-T5 files use
            "Answer the following question.\\n"); must end with a space or newline.
    """

    title_count: PositiveInt = 3
    max_tokens: PositiveInt = 100
    question_prefix: str = ""

    def __post_init__(self) -> None:
        check_fields(self, "IIRC option")
        if self.question_prefix and not self.question_prefix[-1].isspace():
            raise ConfigError("IIRC option 'question_prefix' must end with a space or a newline, got "
                              f"{self.question_prefix!r}")


@dataclass(frozen=True)
class TitleScope:
    """The pages IIRC retrieval is restricted to, and how they were found."""

    generated: tuple[str, ...]
    titles: tuple[str, ...]
    generation: str


class IIRCTitleScoper:
    """Asks the model for page titles and maps them to corpus titles (Appendix B, step ii).

    Args:
        llm: the model.
        matcher: maps a generated title to the nearest corpus title.
        config: the options.
        demonstrations: the authors' title-generation demonstrations (may be empty).
    """

    def __init__(self, llm: LLM, matcher: TitleMatcher, config: IIRCConfig = IIRCConfig(),
                 demonstrations: Sequence[str] = ()) -> None:
        self.llm = llm
        self.matcher = matcher
        self.config = config
        self.fitter = DemonstrationFitter(llm, demonstrations)

    def prompt(self, question: str, main_passage: Paragraph) -> str:
        """The title-generation prompt for one question."""
        ask = (f"{self.config.question_prefix}The question is: '{question.strip()}'. Generate titles of "
               f"{self.config.title_count} Wikipedia pages that have relevant information to answer "
               f"this question.")
        return self.fitter.prompt(test_block([main_passage], ask), reserve=self.config.max_tokens)

    def scope(self, question: str, main_passage: Paragraph) -> TitleScope:
        """Generate titles, map each to its nearest corpus title, keep the distinct ones."""
        with PARTS.call("titles"):
            completion = self.llm.complete(self.prompt(question, main_passage), stop=("\n",),
                                           max_tokens=self.config.max_tokens, temperature=0.0)
        generated = parse_titles(completion.text)
        mapped = (self.matcher.match(title) for title in generated)
        titles = tuple(dict.fromkeys(t for t in mapped if t))
        return TitleScope(generated=tuple(generated), titles=titles, generation=completion.text)
