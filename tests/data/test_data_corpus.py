"""Pooling questions' paragraphs into one deduplicated corpus, gold mapped into it."""

from __future__ import annotations

from pathlib import Path

import pytest

from hopkit.data.corpus import MAIN_PASSAGE_ID, pool_corpus
from hopkit.data.formats import load_hotpotqa, load_iirc
from hopkit.records import ContextParagraph, Example

pytestmark = pytest.mark.unit

FIXTURES = Path(__file__).parent / "fixtures"


def _example(qid: str, *paras: tuple[str, str, bool], main: ContextParagraph | None = None) -> Example:
    return Example(id=qid, question=f"question {qid}?", answers=("a",),
                   context=tuple(ContextParagraph(t, x, s) for t, x, s in paras), main_passage=main)


def test_ids_follow_first_appearance_and_duplicates_collapse() -> None:
    corpus = pool_corpus("toy", [
        _example("q1", ("A", "alpha text", True), ("B", "beta text", False)),
        _example("q2", ("B", "beta  text ", True), ("C", "gamma text", False), ("A", "alpha text", False)),
    ])
    assert [(p.id, p.title, p.text) for p in corpus.paragraphs] == [
        (0, "A", "alpha text"), (1, "B", "beta text"), (2, "C", "gamma text")]
    assert corpus.name == "toy"


def test_same_text_under_another_title_is_another_paragraph() -> None:
    corpus = pool_corpus("toy", [_example("q1", ("A", "same", False), ("B", "same", False))])
    assert len(corpus.paragraphs) == 2


def test_gold_ids_and_titles_point_into_the_pool() -> None:
    corpus = pool_corpus("toy", [
        _example("q1", ("A", "alpha", True), ("B", "beta", False)),
        _example("q2", ("C", "gamma", False), ("B", "beta", True), ("A", "alpha", True), ("A", "alpha", True)),
    ])
    q1, q2 = corpus.queries
    assert (q1.gold_paragraph_ids, q1.gold_titles) == ((0,), ("A",))
    assert (q2.gold_paragraph_ids, q2.gold_titles) == ((1, 0), ("B", "A"))
    assert (q2.id, q2.text, q2.answers) == ("q2", "question q2?", ("a",))


def test_main_passage_is_kept_out_of_the_pool() -> None:
    main = ContextParagraph("Main page", "The main passage.", True)
    corpus = pool_corpus("toy", [_example("q1", ("A", "alpha", True), main=main)])
    query = corpus.queries[0]
    assert query.main_passage is not None
    assert (query.main_passage.id, query.main_passage.title) == (MAIN_PASSAGE_ID, "Main page")
    assert [p.title for p in corpus.paragraphs] == ["A"]


def test_extra_paragraphs_join_the_pool_after_the_questions() -> None:
    corpus = pool_corpus("toy", [_example("q1", ("A", "alpha", True))],
                         extra_paragraphs=[ContextParagraph("A", "alpha"), ContextParagraph("Z", "zeta")])
    assert [p.title for p in corpus.paragraphs] == ["A", "Z"]


def test_hotpot_fixture_pool_dedups_shared_paragraphs() -> None:
    examples = load_hotpotqa(FIXTURES / "hotpot_small.json")
    corpus = pool_corpus("hotpotqa", examples)
    # Veloria, Port Sella, Grand Canal, Ostmark: shared paragraphs (even with other spacing) pooled once
    assert [p.title for p in corpus.paragraphs] == ["Veloria", "Port Sella", "Grand Canal", "Ostmark"]
    assert [q.answer_type for q in corpus.queries] == ["span", "yes_no", "yes_no"]
    for query in corpus.queries:
        assert query.gold_paragraph_ids
        assert {corpus.paragraphs[i].title for i in query.gold_paragraph_ids} == set(query.gold_titles)


def test_iirc_pool_holds_every_paragraph_of_the_linked_pages() -> None:
    corpus = pool_corpus("iirc", load_iirc(FIXTURES / "iirc" / "dev.json"))
    assert len(corpus.paragraphs) == 6
    assert all(q.main_passage is not None for q in corpus.queries)
    assert all(len(q.gold_paragraph_ids) == 1 for q in corpus.queries)
