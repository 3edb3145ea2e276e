"""What every method shows the model besides retrieved paragraphs."""

from __future__ import annotations

from typing import Sequence

from hopkit.records import Paragraph, Query


def with_main_passage(query: Query, paragraphs: Sequence[Paragraph]) -> list[Paragraph]:
    """IIRC's main passage first (always in the context, never retrieved), then ``paragraphs``."""
    if query.main_passage is None:
        return list(paragraphs)
    return [query.main_passage, *(p for p in paragraphs if p.id != query.main_passage.id)]
