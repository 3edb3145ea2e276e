"""Paragraphs a method has retrieved so far, each once, in the order they first came."""

from __future__ import annotations

from typing import Sequence

from hopkit.records import Paragraph


class Gathered:
    """The paragraphs retrieved so far, each once, in the order they first came."""

    def __init__(self) -> None:
        self.paragraphs: list[Paragraph] = []
        self._ids: set[int] = set()

    def add(self, paragraphs: Sequence[Paragraph]) -> tuple[int, ...]:
        """Add the paragraphs not gathered yet; their ids."""
        added = [p for p in paragraphs if p.id not in self._ids]
        self.paragraphs.extend(added)
        self._ids.update(p.id for p in added)
        return tuple(p.id for p in added)

    @property
    def ids(self) -> tuple[int, ...]:
        return tuple(p.id for p in self.paragraphs)

    @property
    def titles(self) -> tuple[str, ...]:
        return tuple(p.title for p in self.paragraphs)
