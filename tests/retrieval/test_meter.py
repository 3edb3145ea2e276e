"""MeteredRetriever adds retrieval time to the open usage block."""

from __future__ import annotations

from typing import Collection

import pytest

from hopkit.errors import RetrievalError
from hopkit.records import Paragraph, ScoredParagraph
from hopkit.retrieval import InMemoryRetriever, MeteredRetriever, Retriever
from hopkit.usage import track_usage

pytestmark = pytest.mark.unit

PARAGRAPHS = [Paragraph(1, "Paris", "capital of France"), Paragraph(2, "Rome", "capital of Italy")]


class Failing:
    def retrieve(self, query: str, k: int, exclude: Collection[int] = frozenset(),
                 titles: Collection[str] | None = None) -> list[ScoredParagraph]:
        raise RetrievalError("index gone")


def test_forwards_and_counts_inside_a_block() -> None:
    metered = MeteredRetriever(InMemoryRetriever(PARAGRAPHS))
    assert isinstance(metered, Retriever)
    with track_usage() as usage:
        hits = metered.retrieve("Italy", k=5, exclude={1}, titles={"Rome", "Paris"})
        metered.retrieve("France", k=1)
    assert [h.id for h in hits] == [2]
    assert usage.retrieval_calls == 2
    assert usage.retrieval_seconds >= 0.0
    assert usage.llm_calls == 0 and list(usage.components) == ["retrieval"]


def test_counts_nothing_outside_a_block_and_blocks_do_not_mix() -> None:
    metered = MeteredRetriever(InMemoryRetriever(PARAGRAPHS))
    assert [h.id for h in metered.retrieve("capital", k=5)] == [1, 2]
    with track_usage() as outer:
        metered.retrieve("capital", k=5)
        with track_usage() as inner:
            metered.retrieve("capital", k=5)
    assert (outer.retrieval_calls, inner.retrieval_calls) == (1, 1)


def test_counts_a_failing_call_and_reraises() -> None:
    with track_usage() as usage:
        with pytest.raises(RetrievalError, match="index gone"):
            MeteredRetriever(Failing()).retrieve("q", k=1)
    assert usage.retrieval_calls == 1
