"""The fictional corpus the tests share: a foundry, its founder, her birthplace, its river and the sea it
flows into. Nothing in it is true of the world, so a method (or a real model) can answer only from the
paragraphs it retrieved. ``paragraphs(n)`` takes the first n; a test that needs other text writes its own."""

from __future__ import annotations

from hopkit.records import Corpus, Paragraph, Query

_TEXTS = (
    ("Velmora Ironworks", "Velmora Ironworks was founded by Ada Quill in 1871."),
    ("Ada Quill", "Ada Quill was an engineer from the port of Tarsk."),
    ("Tarsk", "Tarsk is a port on the Orl River."),
    ("Orl River", "The Orl River flows into the Grey Sea."),
    ("Grey Sea", "The Grey Sea is cold."),
)
FOUNDER = Query("q1", "Who founded Velmora Ironworks?", ("Ada Quill",), gold_paragraph_ids=(0,))
BIRTHPLACE = Query("q1", "Where was the founder of Velmora Ironworks born?", ("Tarsk",), gold_paragraph_ids=(0, 1))


def paragraphs(count: int = 3, first_id: int = 0) -> tuple[Paragraph, ...]:
    """The first ``count`` paragraphs, numbered from ``first_id``."""
    if not 1 <= count <= len(_TEXTS):
        raise ValueError(f"the fictional corpus has {len(_TEXTS)} paragraphs, not {count}")
    return tuple(Paragraph(first_id + i, title, text) for i, (title, text) in enumerate(_TEXTS[:count]))


def corpus(queries: tuple[Query, ...] = (BIRTHPLACE,), count: int = 3, name: str = "toy") -> Corpus:
    """A dataset of the first ``count`` paragraphs and ``queries``, to store."""
    return Corpus(name, paragraphs(count), queries)
