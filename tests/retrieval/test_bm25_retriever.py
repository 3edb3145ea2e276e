"""BM25Retriever: tokenisation, filters, dedup, save and load."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hopkit.errors import RetrievalError
from hopkit.records import Paragraph
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.retrieval.index_meta import META_FILE
from hopkit.retrieval.protocol import Retriever

pytestmark = pytest.mark.unit

PARAGRAPHS = [
    Paragraph(1, "Ridley Scott", "Ridley Scott is an English film director and producer."),
    Paragraph(2, "Alien (film)", "Alien is a 1979 science fiction horror film directed by Ridley Scott."),
    Paragraph(3, "Alien copy", "ALIEN is a 1979   science fiction horror film directed by Ridley Scott."),
    Paragraph(4, "Paris", "Paris is the capital and largest city of France."),
    Paragraph(5, "Berlin", "Berlin is the capital of Germany."),
    Paragraph(6, "Blade Runner", "Blade Runner is a 1982 science fiction film."),
    Paragraph(7, "Seine", "The Seine flows through Paris."),
]


@pytest.fixture(scope="module")
def retriever() -> BM25Retriever:
    return BM25Retriever.build(PARAGRAPHS)


def ids(hits: list) -> list[int]:
    return [hit.id for hit in hits]


def test_is_a_retriever(retriever: BM25Retriever) -> None:
    assert isinstance(retriever, Retriever)


def test_query_is_stemmed_like_the_index(retriever: BM25Retriever) -> None:
    # "directors" only matches "director" (paragraph 1) if the query is stemmed like the index;
    # "directed" stems to "direct", a different token.
    assert ids(retriever.retrieve("Who are the DIRECTORS?", k=5)) == [1]
    assert set(ids(retriever.retrieve("films directed", k=10))) == {1, 2, 6}


def test_title_is_indexed(retriever: BM25Retriever) -> None:
    assert ids(retriever.retrieve("Seine", k=1)) == [7]
    assert ids(retriever.retrieve("Runner", k=1)) == [6]


def test_scores_are_descending_and_positive(retriever: BM25Retriever) -> None:
    hits = retriever.retrieve("capital city of France", k=10)
    assert ids(hits)[0] == 4
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert all(h.score > 0 for h in hits)


def test_duplicate_text_returned_once(retriever: BM25Retriever) -> None:
    hits = retriever.retrieve("alien horror", k=10)
    assert len({" ".join(h.paragraph.text.lower().split()) for h in hits}) == len(hits)
    assert len({2, 3} & set(ids(hits))) == 1


def test_exclude_and_titles(retriever: BM25Retriever) -> None:
    assert 4 not in ids(retriever.retrieve("Paris", k=10, exclude={4}))
    assert ids(retriever.retrieve("Paris", k=10, exclude={4})) == [7]
    assert ids(retriever.retrieve("capital", k=10, titles={"Berlin"})) == [5]
    assert retriever.retrieve("capital", k=10, titles={"Seine"}) == []
    # excluding the best duplicate lets the other copy through
    assert set(ids(retriever.retrieve("alien horror", k=10, exclude={2}))) >= {3}


def test_titles_restrict_scoring_beyond_the_top_hundred() -> None:
    strong = [Paragraph(i, f"Strong {i}", f"paris paris paris item{i}") for i in range(150)]
    weak = Paragraph(999, "Weak", "a long paragraph that mentions paris once among many other words here")
    retriever = BM25Retriever.build([*strong, weak])
    assert 999 not in ids(retriever.retrieve("paris", k=100))
    assert ids(retriever.retrieve("paris", k=3, titles={"Weak"})) == [999]


def test_k_larger_than_corpus_and_empty_queries(retriever: BM25Retriever) -> None:
    assert len(retriever.retrieve("the films", k=1000)) == 3  # 1, 6, and one of the duplicates 2 and 3
    assert retriever.retrieve("", k=5) == []
    assert retriever.retrieve("the of and", k=5) == []
    assert retriever.retrieve("xylophone", k=5) == []
    assert retriever.retrieve("Paris", k=0) == []
    with pytest.raises(RetrievalError, match="k must be"):
        retriever.retrieve("Paris", k=-1)


def test_build_rejects_bad_input() -> None:
    with pytest.raises(RetrievalError, match="empty corpus"):
        BM25Retriever.build([])
    with pytest.raises(RetrievalError, match="unknown BM25 method"):
        BM25Retriever.build(PARAGRAPHS, method="okapi")
    with pytest.raises(RetrievalError, match="k1"):
        BM25Retriever.build(PARAGRAPHS, b=2.0)
    with pytest.raises(RetrievalError, match="appears twice"):
        BM25Retriever.build([PARAGRAPHS[0], PARAGRAPHS[0]])
    with pytest.raises(RetrievalError, match="stopwords only"):
        BM25Retriever.build([Paragraph(1, "", "the of")])


def test_save_load_round_trip(retriever: BM25Retriever, tmp_path: Path) -> None:
    retriever.save(tmp_path / "index")
    loaded = BM25Retriever.load(tmp_path / "index", PARAGRAPHS)
    for query in ["capital of France", "Ridley Scott films", "science fiction", "directors"]:
        assert loaded.retrieve(query, k=5) == retriever.retrieve(query, k=5)
    mapped = BM25Retriever.load(tmp_path / "index", PARAGRAPHS, mmap=True)
    assert mapped.retrieve("Paris", k=3) == retriever.retrieve("Paris", k=3)


def test_load_refuses_other_paragraphs(retriever: BM25Retriever, tmp_path: Path) -> None:
    retriever.save(tmp_path)
    with pytest.raises(RetrievalError, match="built for 7 paragraphs, given 6; delete"):
        BM25Retriever.load(tmp_path, PARAGRAPHS[:-1])
    edited = [*PARAGRAPHS[:-1], Paragraph(7, "Seine", "The Seine flows through Rouen.")]
    with pytest.raises(RetrievalError, match="other paragraphs.*rebuild"):
        BM25Retriever.load(tmp_path, edited)


def test_load_refuses_other_tokenizer_and_missing_index(retriever: BM25Retriever, tmp_path: Path) -> None:
    with pytest.raises(RetrievalError, match="no hopkit bm25 index"):
        BM25Retriever.load(tmp_path / "missing", PARAGRAPHS)
    retriever.save(tmp_path)
    meta = json.loads((tmp_path / META_FILE).read_text())
    meta["tokenizer"] = "someone-else"
    (tmp_path / META_FILE).write_text(json.dumps(meta))
    with pytest.raises(RetrievalError, match="tokenised with 'someone-else'"):
        BM25Retriever.load(tmp_path, PARAGRAPHS)
    (tmp_path / META_FILE).write_text("{not json")
    with pytest.raises(RetrievalError, match="cannot read"):
        BM25Retriever.load(tmp_path, PARAGRAPHS)
