"""The typed records that cross package boundaries."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from operator import attrgetter
from typing import Any, Iterable, Mapping, Sequence


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
    summary of the question, stored beside its typed trace: a
    :class:`~hopkit.traces.summary.Summary` declared in its package (a frozen dataclass
    that also reads as the mapping it stores), or any mapping of JSON values.
    """

    text: str
    chunk_ids: tuple[int, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)


_FINGERPRINT_CHUNK = 4096


def corpus_fingerprint(paragraphs: Iterable[Paragraph]) -> str:
    """The fingerprint of a corpus: SHA-256 (hex) of its paragraphs' ids, titles and texts.

    The only way hopkit fingerprints a corpus. The store keeps it per dataset and per run
    (a run computed on another corpus is stale), and a saved index carries it in its
    folder name and its metadata file. The bytes hashed are, in id order, one
    ``json.dumps([id, title, text], ensure_ascii=False)`` line per paragraph; do not
    change them: every run stored on a user's disk would turn stale.

    Args:
        paragraphs: the corpus, in any order.

    Returns:
        64 hex digits; equal for equal sets of (id, title, text), whatever their order.
    """
    hasher = FingerprintHasher()
    ordered = sorted(paragraphs, key=attrgetter("id"))
    for start in range(0, len(ordered), _FINGERPRINT_CHUNK):
        hasher.update(ordered[start:start + _FINGERPRINT_CHUNK])
    return hasher.hexdigest()


class FingerprintHasher:
    """:func:`corpus_fingerprint` taken in pieces, for a corpus too large to hold: feed its
    paragraphs in ascending id order, in batches of any size."""

    def __init__(self) -> None:
        self._digest = hashlib.sha256()
        self._last_id: int | None = None

    def update(self, paragraphs: Sequence[Paragraph]) -> None:
        """Hash the next paragraphs.

        Raises:
            ValueError: if an id is below one hashed before it.
        """
        for paragraph in paragraphs:
            if self._last_id is not None and paragraph.id < self._last_id:
                raise ValueError(f"paragraphs must come in id order: {paragraph.id} after {self._last_id}")
            self._last_id = paragraph.id
        # The very string json.dumps([id, title, text], ensure_ascii=False) makes (the same
        # C string escaper), at twice its speed: an index load checks the fingerprint.
        chunk = "".join(f"[{p.id}, {encode_basestring(p.title)}, {encode_basestring(p.text)}]\n"
                        for p in paragraphs)
        # surrogatepass: a lone surrogate (possible in a JSON-escaped source file) hashes
        # instead of raising; every other text encodes exactly as plain UTF-8.
        self._digest.update(chunk.encode("utf-8", "surrogatepass"))

    def hexdigest(self) -> str:
        return self._digest.hexdigest()
