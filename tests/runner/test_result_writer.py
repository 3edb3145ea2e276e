"""The writer thread stores answers several per transaction and reports each only once stored."""

from __future__ import annotations

import math
import threading
from typing import Any

import pytest

from hopkit.errors import StoreError
from hopkit.executors.answers import StoredAnswer
from hopkit.executors.result_writer import Answered, ResultWriter, StoredOnReturn
from hopkit.records import Corpus, Paragraph, Query
from hopkit.store.connection import DBConnection
from hopkit.store.records import QueryResult, RunSpec
from hopkit.store.store import Store

QUERIES = tuple(Query(f"q{i}", f"Where is town {i}?", ("Tarsk",)) for i in range(6))


def run_in(db_url: str) -> tuple[Store, str]:
    store = Store(DBConnection(db_url).get_session_factory())
    store.add_corpus(Corpus("toy", (Paragraph(1, "Tarsk", "Tarsk is a port."),), QUERIES))
    return store, store.ensure_run(RunSpec("writer", "nor", "toy", {})).run_id


def test_every_answer_is_reported_once_stored(db_url: str) -> None:
    store, run_id = run_in(db_url)
    reports: list[StoredAnswer | BaseException] = []

    def report(item: StoredAnswer | BaseException) -> None:
        assert isinstance(item, StoredAnswer) and item.query_id in store.finished_query_ids(run_id)
        reports.append(item)

    writer = ResultWriter(store, run_id, report)
    for query in QUERIES:
        writer.submit(Answered(QueryResult(query.id, "Tarsk", chunk_ids=(1,)), None, 0.25))
    writer.close()
    assert sorted(r.query_id for r in reports) == [q.id for q in QUERIES]  # type: ignore[union-attr]
    assert all(r.seconds >= 0.25 for r in reports)  # type: ignore[union-attr]
    assert [r.prediction for r in store.results(run_id)] == ["Tarsk"] * 6


def test_a_refused_answer_fails_alone_and_the_rest_of_its_batch_is_stored(db_url: str) -> None:
    store, run_id = run_in(db_url)
    reports: list[StoredAnswer | BaseException] = []
    writer = ResultWriter(store, run_id, reports.append)
    for number, query in enumerate(QUERIES):
        trace = {"score": math.nan} if number == 2 else {}  # not JSON: the store refuses it
        writer.submit(Answered(QueryResult(query.id, "Tarsk", trace=trace), None, 0.0))
    writer.close()
    failed = {r.query_id: r.failure_kind for r in reports if isinstance(r, StoredAnswer) and r.error}
    assert failed == {"q2": "StoreError"} and len(reports) == 6
    assert {r.query_id: r.error is None for r in store.results(run_id)} == {q.id: q.id != "q2" for q in QUERIES}


def test_an_unusable_store_is_reported_and_stops_the_writer(db_url: str) -> None:
    store, run_id = run_in(db_url)
    store.delete_run(run_id)  # nothing, not even a failure, can be stored for this run now
    reports: list[StoredAnswer | BaseException] = []
    writer = ResultWriter(store, run_id, reports.append)
    writer.submit(Answered(QueryResult("q0", "Tarsk"), None, 0.0))
    writer.close()
    assert len(reports) == 1 and isinstance(reports[0], StoreError) and "unknown run" in str(reports[0])


def answered_by_threads(writer: StoredOnReturn, queries: tuple[Query, ...]) -> dict[str, Any]:
    """Each query handed over from a thread of its own, all at once; what each thread got back."""
    outcomes: dict[str, Any] = {}
    together = threading.Barrier(len(queries))

    def hand_over(query: Query) -> None:
        together.wait()
        try:
            outcomes[query.id] = writer.store(Answered(QueryResult(query.id, "Tarsk"), None, 0.0))
        except StoreError as refused:
            outcomes[query.id] = refused

    threads = [threading.Thread(target=hand_over, args=(query,)) for query in queries]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in threads), "a thread still waits for its answer to be stored"
    return outcomes


def test_each_caller_gets_its_own_answer_back_once_stored_and_callers_share_transactions(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 52: a Ray actor's threads stored one transaction each before taking their next question."""
    store, run_id = run_in(db_url)
    transactions: list[int] = []
    record_results = store.record_results

    def counted(run: str, results: Any) -> Any:
        results = list(results)
        transactions.append(len(results))
        return record_results(run, results)

    monkeypatch.setattr(store, "record_results", counted)
    outcomes = answered_by_threads(StoredOnReturn(store, run_id), QUERIES)
    assert {query_id: stored.query_id for query_id, stored in outcomes.items()} == {q.id: q.id for q in QUERIES}
    assert store.finished_query_ids(run_id) == {q.id for q in QUERIES}
    assert sum(transactions) == 6 and len(transactions) < 6, transactions


def test_every_caller_waiting_on_an_unusable_store_gets_its_error(db_url: str) -> None:
    store, run_id = run_in(db_url)
    store.delete_run(run_id)
    writer = StoredOnReturn(store, run_id)
    outcomes = answered_by_threads(writer, QUERIES[:3])
    assert all(isinstance(outcome, StoreError) for outcome in outcomes.values()), outcomes
    with pytest.raises(StoreError, match="unknown run"):
        writer.store(Answered(QueryResult("q5", "Tarsk"), None, 0.0))
