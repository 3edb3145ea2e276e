"""Filtering, deduplication and ordering shared by the index-backed retrievers."""

from __future__ import annotations

import numpy as np
import pytest

from hopkit.errors import RetrievalError
from hopkit.records import Paragraph
from hopkit.retrieval.corpus_view import CorpusView, dedup_key, in_id_order

pytestmark = pytest.mark.unit

PARAGRAPHS = [
    Paragraph(7, "A", "alpha text"),
    Paragraph(3, "B", "beta text"),
    Paragraph(5, "A", "Alpha   TEXT"),  # same text as id 7 after normalisation
    Paragraph(9, "C", "gamma text"),
]


def ids(hits: list) -> list[int]:
    return [hit.id for hit in hits]


def test_best_first_ties_by_id() -> None:
    view = CorpusView(PARAGRAPHS)
    hits = view.select(np.array([1.0, 2.0, 0.5, 2.0]), k=10)
    assert ids(hits) == [3, 9, 7]  # 5 is a duplicate of 7
    assert [h.score for h in hits] == [2.0, 2.0, 1.0]


def test_duplicate_text_keeps_the_best_scored() -> None:
    hits = CorpusView(PARAGRAPHS).select(np.array([1.0, 0.0, 3.0, 0.0]), k=10)
    assert ids(hits) == [5, 3, 9]


def test_exclude_titles_and_positive_only() -> None:
    view = CorpusView(PARAGRAPHS)
    scores = np.array([1.0, 2.0, 0.5, 0.0])
    assert ids(view.select(scores, k=10, exclude={3, 7})) == [5, 9]
    assert ids(view.select(scores, k=10, titles={"A"})) == [7]
    assert ids(view.select(scores, k=10, titles={"A"}, exclude={7})) == [5]
    assert ids(view.select(scores, k=10, titles={"nope"})) == []
    assert ids(view.select(scores, k=10, positive_only=True)) == [3, 7]
    assert ids(view.select(scores, k=10, exclude={12345})) == [3, 7, 9]


def test_k_bounds() -> None:
    view = CorpusView(PARAGRAPHS)
    scores = np.array([1.0, 2.0, 0.5, 0.0])
    assert view.select(scores, k=0) == []
    assert ids(view.select(scores, k=1)) == [3]
    with pytest.raises(RetrievalError, match="k must be"):
        view.select(scores, k=-1)
    with pytest.raises(RetrievalError, match="scores"):
        view.select(np.zeros(3), k=1)


def test_pool_widens_when_duplicates_fill_it() -> None:
    duplicates = [Paragraph(i, "D", "same text") for i in range(250)]
    distinct = [Paragraph(1000 + i, "E", f"text {i}") for i in range(3)]
    view = CorpusView(duplicates + distinct)
    scores = np.concatenate([np.full(250, 5.0), np.array([3.0, 2.0, 1.0])])
    assert ids(view.select(scores, k=3)) == [0, 1000, 1001]


def test_rejects_duplicate_ids() -> None:
    with pytest.raises(RetrievalError, match="id 7 appears twice"):
        CorpusView([PARAGRAPHS[0], PARAGRAPHS[0]])


def test_in_id_order() -> None:
    assert [p.id for p in in_id_order(PARAGRAPHS)] == [3, 5, 7, 9]
    ordered = sorted(PARAGRAPHS, key=lambda p: p.id)
    assert in_id_order(ordered) is ordered
    assert in_id_order([]) == []


def test_dedup_key() -> None:
    assert dedup_key(" Alpha\n\tTEXT ") == dedup_key("alpha text") == "alpha text"


def test_scores_are_not_modified() -> None:
    scores = np.array([1.0, 2.0, 0.0, -1.0])
    CorpusView(PARAGRAPHS).select(scores, k=10, exclude={7, 3}, positive_only=True)
    CorpusView(PARAGRAPHS).select(scores, k=10, exclude={7}, titles={"A"})
    assert scores.tolist() == [1.0, 2.0, 0.0, -1.0]
