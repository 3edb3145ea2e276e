"""Corpora and questions: round trip, order, replace, atomicity, clear errors."""

from __future__ import annotations

import hashlib
import json
from typing import Callable

import pytest

from hopkit.errors import StoreError
from hopkit.records import Corpus, Paragraph, Query, corpus_fingerprint
from hopkit.store import Store
from hopkit.store import convert

pytestmark = pytest.mark.unit


def test_corpus_round_trip(store: Store, make_corpus: Callable[..., Corpus]) -> None:
    corpus = make_corpus("toy", n_paragraphs=6, n_queries=3)
    store.add_corpus(corpus)

    assert store.datasets() == ["toy"]
    assert store.paragraphs("toy") == list(corpus.paragraphs)
    assert store.queries("toy") == list(corpus.queries)
    assert store.fingerprint("toy") == corpus_fingerprint(corpus.paragraphs)


def test_main_passage_and_answer_type_survive(store: Store,
                                              make_corpus: Callable[..., Corpus]) -> None:
    store.add_corpus(make_corpus("toy"))
    first, second, _ = store.queries("toy")
    assert first.main_passage == Paragraph(id=100, title="Main 0", text="main text 0")
    assert second.main_passage is None
    assert second.answer_type == "yes_no"
    assert isinstance(first.answers, tuple) and isinstance(first.gold_paragraph_ids, tuple)


def test_paragraphs_come_back_ordered_by_id(store: Store) -> None:
    shuffled = (Paragraph(5, "e", "5"), Paragraph(1, "a", "1"), Paragraph(3, "c", "3"))
    store.add_corpus(Corpus("shuffled", shuffled, ()))
    assert [p.id for p in store.paragraphs("shuffled")] == [1, 3, 5]


def test_queries_keep_file_order_and_limit(store: Store) -> None:
    paragraphs = (Paragraph(0, "t", "x"),)
    queries = tuple(Query(id=qid, text=qid) for qid in ["zeta", "alpha", "mid", "beta"])
    store.add_corpus(Corpus("ordered", paragraphs, queries))
    assert [q.id for q in store.queries("ordered")] == ["zeta", "alpha", "mid", "beta"]
    assert [q.id for q in store.queries("ordered", limit=2)] == ["zeta", "alpha"]
    assert store.queries("ordered", limit=0) == []


def test_paragraphs_by_ids_keeps_the_given_order(store: Store,
                                                 make_corpus: Callable[..., Corpus]) -> None:
    store.add_corpus(make_corpus("toy", n_paragraphs=2000, n_queries=1))
    ids = [1999, 3, 1000, 3] + list(range(10, 1500))
    got = store.paragraphs_by_ids("toy", ids)
    assert [p.id for p in got] == ids
    assert got[0].title == "Title 1999"


def test_paragraphs_by_ids_names_missing_ids(store: Store,
                                             make_corpus: Callable[..., Corpus]) -> None:
    store.add_corpus(make_corpus("toy"))
    with pytest.raises(StoreError, match=r"no paragraphs with ids \[42\]"):
        store.paragraphs_by_ids("toy", [1, 42])


def test_two_datasets_have_independent_ids(store: Store,
                                           make_corpus: Callable[..., Corpus]) -> None:
    store.add_corpus(make_corpus("one"))
    other = Corpus("two", (Paragraph(0, "Other", "other text"),), ())
    store.add_corpus(other)
    assert store.datasets() == ["one", "two"]
    assert store.paragraphs_by_ids("two", [0]) == [Paragraph(0, "Other", "other text")]
    assert store.paragraphs_by_ids("one", [0])[0].title == "Title 0"


def test_adding_an_existing_name_asks_for_replace(store: Store,
                                                  make_corpus: Callable[..., Corpus]) -> None:
    store.add_corpus(make_corpus("toy"))
    with pytest.raises(StoreError, match="already stored.*replace=True.*--replace"):
        store.add_corpus(make_corpus("toy"))


def test_replace_swaps_the_whole_dataset(store: Store,
                                         make_corpus: Callable[..., Corpus]) -> None:
    store.add_corpus(make_corpus("toy", n_paragraphs=6, n_queries=3))
    before = store.fingerprint("toy")
    smaller = make_corpus("toy", n_paragraphs=3, n_queries=1)
    store.add_corpus(smaller, replace=True)
    assert store.paragraphs("toy") == list(smaller.paragraphs)
    assert store.queries("toy") == list(smaller.queries)
    assert store.fingerprint("toy") != before


def test_fingerprint_ignores_order_but_not_content() -> None:
    a, b = Paragraph(0, "A", "a"), Paragraph(1, "B", "b")
    assert corpus_fingerprint([a, b]) == corpus_fingerprint([b, a])
    assert corpus_fingerprint([a, b]) != corpus_fingerprint([a, Paragraph(1, "B", "b!")])
    assert corpus_fingerprint([a, b]) != corpus_fingerprint([a, Paragraph(1, "B ", "b")])
    assert corpus_fingerprint([a, b]) != corpus_fingerprint([a, Paragraph(2, "B", "b")])
    assert len(corpus_fingerprint([a])) == 64


@pytest.mark.parametrize("text", ["", '"', "\\", "\n\t\r\x00\x1f\x7f", "é✓😀", "\u2028</script>"])
def test_fingerprint_hashes_one_json_line_per_paragraph_in_id_order(text: str) -> None:
    paragraphs = [Paragraph(5, text, "b"), Paragraph(-1, "a", text)]
    lines = "".join(json.dumps([p.id, p.title, p.text], ensure_ascii=False) + "\n"
                    for p in sorted(paragraphs, key=lambda p: p.id))
    assert corpus_fingerprint(paragraphs) == hashlib.sha256(lines.encode("utf-8")).hexdigest()


def test_fingerprint_values_never_change(make_corpus: Callable[..., Corpus]) -> None:
    """Stored runs carry these values: a change would turn every run on users' disks stale.
    (Computed with the store's function before the index's own fingerprint was merged into it.)"""
    assert corpus_fingerprint(make_corpus("toy", n_paragraphs=6).paragraphs) == (
        "f9e8004e7f6a7ca2c0e7e6c851474821dbd143d7b6a876d0e01c1ed8180ac3e2")
    assert corpus_fingerprint([Paragraph(2, "B", 'b "quoted"\n\tline'), Paragraph(0, "A", "a")]) == (
        "63137b230b21cda761563661d9c5a19cce0fd01f54af89e4faeaaab355ddb5d7")


class _WriteFailed(RuntimeError):
    """Stands for a failure in the middle of the write (lost connection, full disk)."""


def _fail_on_question(monkeypatch: pytest.MonkeyPatch, query_id: str) -> None:
    """Make the write of one question raise, after the paragraphs were written."""
    real = convert.query_row

    def failing(dataset_id: int, position: int, query: Query) -> dict[str, object]:
        if query.id == query_id:
            raise _WriteFailed(f"simulated failure at question {query_id}")
        return real(dataset_id, position, query)

    monkeypatch.setattr(convert, "query_row", failing)


def test_failed_add_writes_nothing(store: Store, make_corpus: Callable[..., Corpus],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    _fail_on_question(monkeypatch, "q2")
    with pytest.raises(_WriteFailed):
        store.add_corpus(make_corpus("toy", n_paragraphs=6, n_queries=3))
    assert store.datasets() == []
    with pytest.raises(StoreError, match="unknown dataset 'toy'"):
        store.paragraphs("toy")


def test_failed_replace_keeps_the_old_dataset(store: Store, make_corpus: Callable[..., Corpus],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    good = make_corpus("toy", n_paragraphs=6, n_queries=3)
    store.add_corpus(good)
    _fail_on_question(monkeypatch, "q1")
    with pytest.raises(_WriteFailed):
        store.add_corpus(make_corpus("toy", n_paragraphs=9, n_queries=3), replace=True)
    assert store.paragraphs("toy") == list(good.paragraphs)
    assert store.queries("toy") == list(good.queries)
    assert store.fingerprint("toy") == corpus_fingerprint(good.paragraphs)


def test_a_nul_in_a_paragraph_stores_as_the_replacement_character_on_both_databases(store: Store) -> None:
    """PostgreSQL refuses NUL in text (this test once used that to fail a write midway; the write
    atomicity is the test above's). A dataset with one now stores, as U+FFFD, on both databases."""
    paragraphs = (Paragraph(0, "ok", "fine"), Paragraph(1, "bad", "nul \x00 here"))
    store.add_corpus(Corpus("broken", paragraphs, ()))
    assert store.paragraphs("broken")[1].text == "nul \ufffd here"
    assert store.fingerprint("broken") == corpus_fingerprint(store.paragraphs("broken"))


@pytest.mark.parametrize(
    ("corpus", "message"),
    [
        (Corpus("dup", (Paragraph(0, "a", "a"), Paragraph(0, "b", "b")), ()),
         "paragraph id 0 appears twice"),
        (Corpus("dupq", (Paragraph(0, "a", "a"),), (Query("x", "?"), Query("x", "??"))),
         "question id 'x' appears twice"),
        (Corpus("gold", (Paragraph(0, "a", "a"),), (Query("x", "?", gold_paragraph_ids=(0, 9)),)),
         r"question 'x': gold paragraph ids \[9\] are not in the corpus"),
        (Corpus(" ", (), ()), "non-empty name"),
        (Corpus("big", (Paragraph(2**40, "a", "a"),), ()), "not an integer between 0 and"),
        (Corpus("types", (Paragraph(0, "a", "a"),), (Query("x", "?", answers=(1,)),)),  # type: ignore[arg-type]
         "answers must all be strings"),
    ],
)
def test_inconsistent_corpus_is_refused(store: Store, corpus: Corpus, message: str) -> None:
    with pytest.raises(StoreError, match=message):
        store.add_corpus(corpus)
    assert store.datasets() == []


def test_unknown_dataset_lists_the_known_ones(store: Store,
                                              make_corpus: Callable[..., Corpus]) -> None:
    store.add_corpus(make_corpus("hotpotqa"))
    store.add_corpus(make_corpus("musique"))
    for call in (lambda: store.queries("2wiki"), lambda: store.fingerprint("2wiki"),
                 lambda: store.paragraphs_by_ids("2wiki", [0])):
        with pytest.raises(StoreError, match="unknown dataset '2wiki'.*hotpotqa, musique"):
            call()


def test_negative_limit_is_refused(store: Store, make_corpus: Callable[..., Corpus]) -> None:
    store.add_corpus(make_corpus("toy"))
    with pytest.raises(StoreError, match="limit"):
        store.queries("toy", limit=-1)
