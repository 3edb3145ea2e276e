"""The paragraphs IRCoT collects for one question, under a fixed budget.

Rules (the authors' code; the documentation page says the same of the budget):

- a paragraph already collected is skipped: same id, same title and text, or a near
  duplicate (title *and* text each at least ``near_duplicate_threshold`` similar by
  ``rapidfuzz.fuzz.ratio``, 0-100);
- a paragraph longer than ``max_words`` words is skipped (it would crowd out the
  demonstrations);
- once ``budget`` paragraphs are collected nothing more is added, so the earliest
  paragraphs (the first retrieval's included) are the ones kept.
"""

from __future__ import annotations

from enum import Enum
from typing import Iterable

from rapidfuzz import fuzz

from hopkit.errors import ConfigError
from hopkit.records import Paragraph


class Admission(str, Enum):
    """What :meth:`ParagraphCollection.add` did with a paragraph."""

    ADDED = "added"
    DUPLICATE = "duplicate"
    NEAR_DUPLICATE = "near_duplicate"
    TOO_LONG = "too_long"
    BUDGET_FULL = "budget_full"


class ParagraphCollection:
    """An ordered, budgeted, duplicate-free set of paragraphs.

    Args:
        budget: the most paragraphs ever held (15 in the paper).
        max_words: paragraphs with more whitespace-separated words are skipped (600).
        near_duplicate_threshold: fuzzy-match score (0-100) from which a paragraph
            whose title and text both match a collected one counts as a duplicate.

    Raises:
        ConfigError: if an option is out of range.
    """

    def __init__(self, budget: int = 15, max_words: int = 600, near_duplicate_threshold: float = 90.0) -> None:
        if budget < 1:
            raise ConfigError(f"paragraph_budget must be at least 1, got {budget}")
        if max_words < 1:
            raise ConfigError(f"max_paragraph_words must be at least 1, got {max_words}")
        if not 0.0 < near_duplicate_threshold <= 100.0:
            raise ConfigError(f"near_duplicate_threshold must be in (0, 100], got {near_duplicate_threshold}")
        self.budget = budget
        self.max_words = max_words
        self.near_duplicate_threshold = near_duplicate_threshold
        self._paragraphs: list[Paragraph] = []

    @property
    def paragraphs(self) -> tuple[Paragraph, ...]:
        """The collected paragraphs, in the order they were added."""
        return tuple(self._paragraphs)

    @property
    def ids(self) -> tuple[int, ...]:
        """The ids of the collected paragraphs, in the order they were added."""
        return tuple(p.id for p in self._paragraphs)

    @property
    def is_full(self) -> bool:
        """True once ``budget`` paragraphs are held."""
        return len(self._paragraphs) >= self.budget

    def __len__(self) -> int:
        return len(self._paragraphs)

    def admission(self, paragraph: Paragraph) -> Admission:
        """What :meth:`add` would do with ``paragraph`` (nothing is changed)."""
        for held in self._paragraphs:
            if held.id == paragraph.id or (held.title == paragraph.title and held.text == paragraph.text):
                return Admission.DUPLICATE
        if len(paragraph.text.split()) > self.max_words:
            return Admission.TOO_LONG
        if self._is_near_duplicate(paragraph):
            return Admission.NEAR_DUPLICATE
        if self.is_full:
            return Admission.BUDGET_FULL
        return Admission.ADDED

    def add(self, paragraph: Paragraph) -> Admission:
        """Add ``paragraph`` unless a rule skips it; say which."""
        outcome = self.admission(paragraph)
        if outcome is Admission.ADDED:
            self._paragraphs.append(paragraph)
        return outcome

    def extend(self, paragraphs: Iterable[Paragraph]) -> list[Paragraph]:
        """Add each paragraph in order; return those actually added."""
        return [p for p in paragraphs if self.add(p) is Admission.ADDED]

    def add_each(self, paragraphs: Iterable[Paragraph]) -> list[Admission]:
        """Add each paragraph in order, as :meth:`extend` does; return what was done with each."""
        return [self.add(p) for p in paragraphs]

    def _is_near_duplicate(self, paragraph: Paragraph) -> bool:
        threshold = self.near_duplicate_threshold
        return any(
            fuzz.ratio(held.title, paragraph.title) >= threshold
            and fuzz.ratio(held.text, paragraph.text) >= threshold
            for held in self._paragraphs
        )
