"""IRCoT (Trivedi et al., 2023): interleaving retrieval with chain-of-thought reasoning.

The loop is :class:`~hopkit.methods.ircot.method.IRCoT`; its options, query, reading and trace
steps are beside it, and IIRC's title step (Appendix B) in :mod:`~hopkit.methods.ircot.iirc`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence, cast

from hopkit.methods.demonstrations import DemonstrationSpec, load_demonstrations
from hopkit.methods.ircot.claims import CLAIMS
from hopkit.methods.ircot.config import IRCoTConfig
from hopkit.methods.ircot.iirc import RetrieverTitleMatcher
from hopkit.methods.ircot.method import IRCoT
from hopkit.methods.ircot.steps import PAYLOADS, IRCoTSummary
from hopkit.methods.protocol import WarmsUp
from hopkit.methods.registry import MethodEntry, MethodParts
from hopkit.records import Paragraph
from hopkit.methods.ircot.parts import PARTS

# The question prefixes of the authors' Flan-T5 prompt files (Appendix G).
FLAN_COT_PREFIX = "Answer the following question by reasoning step-by-step.\n"
FLAN_DIRECT_PREFIX = "Answer the following question.\n"


@dataclass(frozen=True)
class IRCoTOptions(IRCoTConfig):
    """IRCoT's options: the loop's (:class:`IRCoTConfig`), and where its demonstrations come from.

    Attributes:
        demonstrations: the authors' demonstration set (reasoning: their CoT file; reader: the
            file of the reader's mode; same M). With ``family="flan_t5"``, empty question
            prefixes become the Flan-T5 files' prefixes.
        title_matching: IIRC's title step (Appendix B) for questions with a main passage;
            None = on when the dataset is ``iirc``.
    """

    demonstrations: DemonstrationSpec | None = None
    title_matching: bool | None = None


def with_flan_prefixes(options: IRCoTOptions) -> IRCoTOptions:
    """The Flan-T5 files' question prefixes where the options leave them empty (Appendix G)."""
    if options.demonstrations is None or options.demonstrations.family != "flan_t5":
        return options
    reader_prefix = FLAN_DIRECT_PREFIX if options.reader == "direct" else FLAN_COT_PREFIX
    return replace(options, question_prefix=options.question_prefix or FLAN_COT_PREFIX,
                   reader_question_prefix=options.reader_question_prefix or reader_prefix,
                   iirc=replace(options.iirc, question_prefix=options.iirc.question_prefix or FLAN_DIRECT_PREFIX))


class CorpusTitleMatcher(WarmsUp):
    """BM25 over the titles of the dataset's corpus (Appendix B), built by ``warm_up()``."""

    def __init__(self, paragraphs: Callable[[], Sequence[Paragraph]]) -> None:
        self.paragraphs = paragraphs
        self._inner: RetrieverTitleMatcher | None = None

    def build_heavy_parts(self) -> None:
        from hopkit.retrieval.bm25 import BM25Retriever

        corpus = RetrieverTitleMatcher.title_corpus(self.paragraphs())
        self._inner = RetrieverTitleMatcher(BM25Retriever.build(corpus))

    def match(self, title: str) -> str | None:
        self.warm_up()
        return cast(RetrieverTitleMatcher, self._inner).match(title)


def _title_step(parts: MethodParts) -> tuple[CorpusTitleMatcher | None, list[str]]:
    options = parts.options
    wanted = options.title_matching if options.title_matching is not None else parts.dataset == "iirc"
    if not wanted:
        return None, []
    if options.demonstrations is None:
        return CorpusTitleMatcher(parts.paragraphs), []
    from hopkit.prompts.ircot_files import load_title_demonstrations

    return CorpusTitleMatcher(parts.paragraphs), load_title_demonstrations(options.demonstrations.family)


def build(parts: MethodParts) -> IRCoT:
    retriever = parts.needed_retriever("IRCoT")
    options = parts.options
    reasoning = load_demonstrations(options.demonstrations, "cot", with_context=True)
    reader = [] if options.reader == "none" else load_demonstrations(options.demonstrations, options.reader,
                                                                      with_context=True)
    matcher, title_demonstrations = _title_step(parts)
    return IRCoT(parts.llm, retriever, options, reasoning, reader, title_matcher=matcher,
                 title_demonstrations=title_demonstrations)


METHOD = MethodEntry(
    name="ircot", title="IRCoT", options=IRCoTOptions, build=build, retrieves=True, top_k="k_per_step",
    prepare=with_flan_prefixes, template=Path(__file__).with_name("report.html.j2"),
    summary="interleaves retrieval with chain-of-thought reasoning, one sentence at a time", payloads=PAYLOADS,
    summary_type=IRCoTSummary, claims=CLAIMS, parts=PARTS)

__all__ = ["FLAN_COT_PREFIX", "FLAN_DIRECT_PREFIX", "IRCoT", "IRCoTConfig", "IRCoTOptions", "METHOD"]
