"""The authors' Wikipedia environment (``wikienv.py``) over a passage retriever: ``Search[x]``
returns the first sentences of what the retriever finds for x, ``Lookup[k]`` the next sentence
of it holding k. Sentences are split as the authors split them, at ". "."""

from __future__ import annotations

from dataclasses import dataclass, field

from hopkit.records import Paragraph, ScoredParagraph
from hopkit.retrieval.protocol import Retriever

SENTENCES_SHOWN = 5
#: A Lookup with no sentence left: wikienv.py's observation, its newline included (the trajectory gets a blank
#: line after it).
NO_MORE_RESULTS = "No more results.\n"


@dataclass
class Page:
    """What the last search found: its paragraphs and their sentences (with the paragraph of each)."""

    paragraphs: list[Paragraph] = field(default_factory=list)
    sentences: list[tuple[str, int]] = field(default_factory=list)


def sentences_of(paragraphs: list[Paragraph]) -> list[tuple[str, int]]:
    """Each paragraph's sentences, split at ". " and ended with a period, as ``get_page_obs``."""
    found = []
    for paragraph in paragraphs:
        for line in paragraph.text.split("\n"):
            found += [(s.strip() + ".", paragraph.id) for s in line.strip().split(". ") if s.strip()]
    return [(s[:-1] if s.endswith("..") else s, pid) for s, pid in found]


class PassageEnvironment:
    """One question's environment: the page of the last search and the lookup under way."""

    def __init__(self, retriever: Retriever, k: int, no_more_results: str = NO_MORE_RESULTS) -> None:
        self.retriever = retriever
        self.k = k
        self.no_more_results = no_more_results
        self.page = Page()
        self.keyword: str | None = None
        self.matches: list[tuple[str, int]] = []
        self.shown = 0

    def search(self, entity: str) -> tuple[str, list[ScoredParagraph]]:
        """The observation of ``Search[entity]`` and the hits it comes from."""
        hits = self.retriever.retrieve(entity, self.k) if entity.strip() else []
        paragraphs = [hit.paragraph for hit in hits]
        self.page = Page(paragraphs, sentences_of(paragraphs))
        self.keyword = None
        if not hits:
            return f"Could not find {entity}.", []
        return " ".join(s for s, _ in self.page.sentences[:SENTENCES_SHOWN]), list(hits)

    def lookup(self, keyword: str) -> tuple[str, int | None]:
        """The observation of ``Lookup[keyword]`` and the paragraph its sentence is from."""
        if not self.page.paragraphs:
            return self.no_more_results, None
        if keyword != self.keyword:
            self.keyword = keyword
            self.matches = [(s, pid) for s, pid in self.page.sentences if keyword.lower() in s.lower()]
            self.shown = 0
        if self.shown >= len(self.matches):
            return self.no_more_results, None
        sentence, paragraph_id = self.matches[self.shown]
        self.shown += 1
        return f"(Result {self.shown} / {len(self.matches)}) {sentence}", paragraph_id
