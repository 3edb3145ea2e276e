"""The in-memory fake retriever."""

from __future__ import annotations

import pytest

from hopkit.errors import RetrievalError
from hopkit.records import Paragraph
from hopkit.retrieval.memory import InMemoryRetriever
from hopkit.retrieval.protocol import Retriever

pytestmark = pytest.mark.unit

PARAGRAPHS = [
    Paragraph(1, "Paris", "Paris is the capital of France."),
    Paragraph(2, "Berlin", "Berlin is the capital of Germany."),
    Paragraph(3, "France", "France is a country in Europe; its capital is Paris."),
    Paragraph(4, "Rome", "Rome is an old city."),
]


def test_is_a_retriever() -> None:
    assert isinstance(InMemoryRetriever(PARAGRAPHS), Retriever)


def test_scores_by_shared_lowercased_words_ties_by_id() -> None:
    hits = InMemoryRetriever(PARAGRAPHS).retrieve("CAPITAL of FRANCE", k=10)
    assert [h.id for h in hits] == [1, 2, 3]
    assert [h.score for h in hits] == [3.0, 2.0, 2.0]


def test_honours_k_exclude_and_titles() -> None:
    retriever = InMemoryRetriever(PARAGRAPHS)
    assert [h.id for h in retriever.retrieve("capital of France", k=1)] == [1]
    assert [h.id for h in retriever.retrieve("capital of France", k=10, exclude={1})] == [2, 3]
    assert [h.id for h in retriever.retrieve("capital", k=10, titles={"Berlin", "Rome"})] == [2]
    assert retriever.retrieve("capital", k=0) == []


def test_no_shared_word_returns_nothing() -> None:
    assert InMemoryRetriever(PARAGRAPHS).retrieve("zebra", k=3) == []
    assert InMemoryRetriever(PARAGRAPHS).retrieve("  ", k=3) == []


def test_rejects_duplicate_ids_and_negative_k() -> None:
    with pytest.raises(RetrievalError, match="id 1 appears twice"):
        InMemoryRetriever([PARAGRAPHS[0], PARAGRAPHS[0]])
    with pytest.raises(RetrievalError, match="k must be"):
        InMemoryRetriever(PARAGRAPHS).retrieve("paris", k=-1)
