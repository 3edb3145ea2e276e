"""The typed records that cross package boundaries."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping


@dataclass(frozen=True)
class ContextParagraph:
    """A paragraph as a dataset file gives it, attached to one question (before pooling)."""

    title: str
    text: str
    is_supporting: bool = False


@dataclass(frozen=True)
class Example:
    """One question of a dataset file with its gold answers and its own paragraphs.

    ``answers`` holds the main answer first, then its aliases. ``main_passage`` is
    IIRC's grounding passage, which is always shown to the model and never retrieved.
    """

    id: str
    question: str
    answers: tuple[str, ...]
    context: tuple[ContextParagraph, ...]
    main_passage: ContextParagraph | None = None
    answer_type: str = "span"  # "span" | "yes_no" | "number" | "date"


@dataclass(frozen=True)
class Paragraph:
    """A paragraph of a pooled corpus; ``id`` is its integer id in the store."""

    id: int
    title: str
    text: str


@dataclass(frozen=True)
class ScoredParagraph:
    """A retrieved paragraph with the retriever's score (higher is better)."""

    paragraph: Paragraph
    score: float

    @property
    def id(self) -> int:
        return self.paragraph.id


@dataclass(frozen=True)
class Query:
    """A question of an ingested dataset, with gold mapped into the pooled corpus."""

    id: str
    text: str
    answers: tuple[str, ...] = ()
    gold_paragraph_ids: tuple[int, ...] = ()
    gold_titles: tuple[str, ...] = ()
    main_passage: Paragraph | None = None
    answer_type: str = "span"


@dataclass(frozen=True)
class Corpus:
    """A pooled, deduplicated corpus and the questions whose gold points into it."""

    name: str
    paragraphs: tuple[Paragraph, ...]
    queries: tuple[Query, ...]


@dataclass(frozen=True)
class GenerationResult:
    """What a method returns for one question.

    ``text`` is the final answer. ``chunk_ids`` are the ids of the paragraphs the
    method retrieved, in the order it collected them. ``metadata`` is the method's
    trace (JSON-serialisable).
    """

    text: str
    chunk_ids: tuple[int, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)
