"""BM25Retriever checked against rank_bm25's BM25Okapi fed the very same tokens."""

from __future__ import annotations

import random

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from hopkit.records import Paragraph
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.retrieval.corpus_view import passage_text
from hopkit.retrieval.tokenize import tokenize

pytestmark = pytest.mark.unit

WORDS = (
    "river mountain city king queen battle film director actor novel author poem "
    "island bridge castle church painter music opera album singer band guitar "
    "football club league season player coach election party minister senate "
    "university professor physics chemistry theory planet star galaxy ocean "
    "forest desert village railway station airport company founder engineer "
    "the of and in was is a by with for"
).split()
K1, B = 1.2, 0.75


@pytest.fixture(scope="module")
def corpus() -> list[Paragraph]:
    rng = random.Random(7)
    paragraphs = []
    for i in range(80):
        words = [rng.choice(WORDS) for _ in range(rng.randint(8, 40))]
        paragraphs.append(Paragraph(i, f"{rng.choice(WORDS).title()} {i}", " ".join(words)))
    assert len({p.text for p in paragraphs}) == len(paragraphs)
    return paragraphs


@pytest.fixture(scope="module")
def queries() -> list[str]:
    rng = random.Random(11)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4))) for _ in range(40)]


def okapi_for(corpus: list[Paragraph]) -> BM25Okapi:
    return BM25Okapi([tokenize(passage_text(p)) for p in corpus], k1=K1, b=B)


def test_robertson_scores_equal_okapi_where_idf_is_positive(corpus: list[Paragraph], queries: list[str]) -> None:
    ours = BM25Retriever.build(corpus, k1=K1, b=B, method="robertson")
    okapi = okapi_for(corpus)
    compared = 0
    for query in queries:
        tokens = tokenize(query)
        if not tokens or any(okapi.idf.get(t, 0.0) <= 0 for t in tokens):
            continue  # rank_bm25 floors negative idf at epsilon*mean, bm25s at 0: not comparable
        expected = okapi.get_scores(tokens)
        hits = ours.retrieve(query, k=len(corpus))
        assert {h.id for h in hits} == {i for i in range(len(corpus)) if expected[i] > 0}
        for hit in hits:
            # bm25s leaves out the constant (k1 + 1) factor, which does not change the ranking
            assert hit.score * (K1 + 1) == pytest.approx(expected[hit.id], rel=1e-5)
        compared += 1
    assert compared >= 20


def test_lucene_ranking_agrees_with_okapi(corpus: list[Paragraph], queries: list[str]) -> None:
    ours = BM25Retriever.build(corpus, k1=K1, b=B)  # lucene idf: log(1 + (N - df + .5) / (df + .5))
    okapi = okapi_for(corpus)
    overlaps, top1 = [], []
    for query in queries:
        tokens = tokenize(query)
        if not tokens:
            continue
        expected = okapi.get_scores(tokens)
        reference = [int(i) for i in np.argsort(-expected, kind="stable")[:10] if expected[i] > 0]
        got = [h.id for h in ours.retrieve(query, k=10)]
        overlaps.append(len(set(got) & set(reference)) / max(len(reference), 1))
        top1.append(got[:1] == reference[:1] or expected[got[0]] == expected[reference[0]])
    assert len(overlaps) >= 30
    # measured: overlap@10 0.95, same top-1 for 84% of queries (the idf formulas differ)
    assert float(np.mean(overlaps)) >= 0.9
    assert float(np.mean(top1)) >= 0.75
