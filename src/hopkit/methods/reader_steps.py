"""The reader's step as NoR and OneR record it (a ``read`` step and its typed payload), and their
summaries of a question."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from hopkit.records import Paragraph
from hopkit.traces.payload import Payload, at, record
from hopkit.traces.summary import Summary

__all__ = ["NoRSummary", "OneRSummary", "ReaderRead", "record_reading"]


@dataclass(frozen=True, kw_only=True)
class ReaderRead(Payload):
    """The reader's answer to the question (the step's ``paragraph_ids`` the paragraphs it read)
    and its raw ``generation``."""

    kind = "read"
    question: str = at("input")
    answer: str = at("output")
    generation: str


def record_reading(question: str, answer: str, generation: str, shown: Sequence[Paragraph],
                   parent: int | None = None) -> int | None:
    """The reading step: the reader's answer from the paragraphs ``shown``."""
    return record(ReaderRead(question=question, answer=answer, generation=generation), parent=parent,
                  paragraph_ids=[p.id for p in shown])


@dataclass(frozen=True, kw_only=True)
class NoRSummary(Summary):
    """NoR's summary of one question: the reader's raw generation."""

    reader_generation: str


@dataclass(frozen=True, kw_only=True)
class OneRSummary(NoRSummary):
    """OneR's summary of one question: the reader's raw generation and the titles of the paragraphs
    retrieved."""

    retrieved_titles: tuple[str, ...] = ()
