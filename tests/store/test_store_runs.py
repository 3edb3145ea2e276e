"""Runs and results: identity by configuration, upsert, counts, look-ups."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

import pytest

from hopkit.errors import ConfigError, StoreError
from hopkit.records import Corpus
from hopkit.store import QueryResult, RunSpec, Store
from hopkit.usage import ComponentUsage, Usage

pytestmark = pytest.mark.unit

BASE_CONFIG: dict[str, Any] = {
    "top_k": 4,
    "llm": {"model": "smollm2", "temperature": 0.0, "stop": ["\n"]},
    "prompt": "cot",
}


def spec(name: str = "ircot-a", config: dict[str, Any] | None = None, method: str = "ircot",
         dataset: str = "toy") -> RunSpec:
    return RunSpec(name=name, method=method, dataset=dataset,
                   config=BASE_CONFIG if config is None else config)


def usage() -> Usage:
    return Usage(1.8, {"model": ComponentUsage(2, 0.0, 2, 1.5, 100, 40, 12), "retrieval": ComponentUsage(2, 0.25),
                       "judge:relevance": ComponentUsage(3, 0.1 + 0.2, 1, 0.5, 20, 0, 3)})


def result(query_id: str, prediction: str = "yes", error: str | None = None,
           **extra: Any) -> QueryResult:
    return QueryResult(query_id=query_id, prediction=prediction, chunk_ids=(3, 1, 2),
                       trace={"steps": [{"query": query_id, "ids": [3, 1]}], "note": "é"},
                       usage=usage(), error=error, **extra)


@pytest.fixture
def toy(store: Store, make_corpus: Callable[..., Corpus]) -> Store:
    store.add_corpus(make_corpus("toy", n_paragraphs=6, n_queries=5))
    return store


def test_run_id_is_16_hex_and_ignores_name_and_key_order() -> None:
    run_id = spec().run_id
    assert len(run_id) == 16 and int(run_id, 16) >= 0
    reordered = {"prompt": "cot", "llm": {"stop": ["\n"], "temperature": 0.0, "model": "smollm2"},
                 "top_k": 4}
    assert spec(name="another name", config=reordered).run_id == run_id


@pytest.mark.parametrize(
    "changed",
    [
        {"method": "migres"},
        {"dataset": "musique"},
        {"config": {**BASE_CONFIG, "top_k": 5}},
        {"config": {**BASE_CONFIG, "llm": {**BASE_CONFIG["llm"], "temperature": 0.7}}},
        {"config": {**BASE_CONFIG, "llm": {**BASE_CONFIG["llm"], "stop": ["\n", "Q:"]}}},
        {"config": {**BASE_CONFIG, "new_option": None}},
        {"config": {k: v for k, v in BASE_CONFIG.items() if k != "prompt"}},
        {"config": {**BASE_CONFIG, "top_k": "4"}},
    ],
)
def test_any_change_gives_a_new_run_id(changed: dict[str, Any]) -> None:
    assert spec(**changed).run_id != spec().run_id


def test_config_must_be_json() -> None:
    with pytest.raises(ConfigError, match="not JSON-serialisable"):
        RunSpec(name="x", method="ircot", dataset="toy", config={"path": object()})
    with pytest.raises(ConfigError, match="non-empty string"):
        RunSpec(name="x", method="", dataset="toy", config={})


def test_ensure_run_creates_once(toy: Store) -> None:
    first = toy.ensure_run(spec())
    again = toy.ensure_run(spec(name="renamed"))
    assert first.run_id == again.run_id == spec().run_id
    assert again.name == "ircot-a"
    assert first.config == BASE_CONFIG
    assert (first.finished, first.failed) == (0, 0)
    assert first.created_at.tzinfo is not None
    assert [r.run_id for r in toy.runs()] == [first.run_id]


def test_ensure_run_needs_a_known_dataset(toy: Store) -> None:
    with pytest.raises(StoreError, match="unknown dataset 'nope'.*toy"):
        toy.ensure_run(spec(dataset="nope"))


def test_results_round_trip(toy: Store) -> None:
    run = toy.ensure_run(spec())
    stored = [result("q0"), result("q1", prediction="no"), result("q2", "", error="Boom: x")]
    for item in stored:
        toy.record_result(run.run_id, item)
    assert toy.results(run.run_id) == stored
    assert toy.finished_query_ids(run.run_id) == {"q0", "q1"}
    info = toy.ensure_run(spec())
    assert (info.finished, info.failed) == (2, 1)


def test_failed_questions_are_found_by_the_class_their_error_names(toy: Store) -> None:
    run_id = toy.ensure_run(spec()).run_id
    for item in (result("q0", "", error="EmptyAnswerError: nothing"), result("q1", "", error="NotEmptyAnswerError: x"),
                 result("q2", "", error="Parse_Error: y"), result("q3", "", error="ParseXError: z")):
        toy.record_result(run_id, item)
    assert toy.failed_query_ids(run_id, ["EmptyAnswerError"]) == {"q0"}
    assert toy.failed_query_ids(run_id, ["EmptyAnswerError", "Parse_Error"]) == {"q0", "q2"}
    assert toy.failed_query_ids(run_id, ["Parse_Error"]) == {"q2"}  # "_" is no wildcard
    assert toy.failed_query_ids(run_id, []) == set()
    with pytest.raises(StoreError, match="unknown run"):
        toy.failed_query_ids("nope", ["EmptyAnswerError"])


def test_failed_result_is_replaced_by_a_retry(toy: Store) -> None:
    run_id = toy.ensure_run(spec()).run_id
    toy.record_result(run_id, result("q0", "", error="timeout"))
    assert toy.finished_query_ids(run_id) == set()
    toy.record_result(run_id, result("q0", "Paris"))
    assert toy.results(run_id) == [result("q0", "Paris")]
    assert toy.finished_query_ids(run_id) == {"q0"}


def test_a_failure_never_overwrites_a_success(toy: Store) -> None:
    run_id = toy.ensure_run(spec()).run_id
    toy.record_result(run_id, result("q0", "Paris"))
    toy.record_result(run_id, result("q0", "", error="late failure"))
    assert toy.results(run_id) == [result("q0", "Paris")]


def test_recording_twice_is_idempotent(toy: Store) -> None:
    run_id = toy.ensure_run(spec()).run_id
    for _ in range(3):
        toy.record_result(run_id, result("q0"))
        toy.record_result(run_id, result("q1", "", error="x"))
    assert toy.results(run_id) == [result("q0"), result("q1", "", error="x")]
    assert toy.runs()[0].finished == 1 and toy.runs()[0].failed == 1


def test_runs_keep_their_results_apart(toy: Store) -> None:
    a = toy.ensure_run(spec()).run_id
    b = toy.ensure_run(spec(name="ircot-b", config={**BASE_CONFIG, "top_k": 8})).run_id
    toy.record_result(a, result("q0", "from a"))
    toy.record_result(b, result("q0", "from b"))
    assert [r.prediction for r in toy.results(a)] == ["from a"]
    assert [r.prediction for r in toy.results(b)] == ["from b"]


def test_runs_filter_by_dataset(toy: Store, make_corpus: Callable[..., Corpus]) -> None:
    toy.add_corpus(make_corpus("other"))
    on_toy = toy.ensure_run(spec())
    on_other = toy.ensure_run(spec(dataset="other"))
    assert [r.run_id for r in toy.runs("toy")] == [on_toy.run_id]
    assert [r.run_id for r in toy.runs("other")] == [on_other.run_id]
    assert {r.run_id for r in toy.runs()} == {on_toy.run_id, on_other.run_id}
    with pytest.raises(StoreError, match="unknown dataset 'nope'"):
        toy.runs("nope")


def test_find_runs_by_name_id_and_prefix(toy: Store) -> None:
    a = toy.ensure_run(spec(name="shared"))
    b = toy.ensure_run(spec(name="shared", config={**BASE_CONFIG, "top_k": 9}))
    assert {r.run_id for r in toy.find_runs("shared")} == {a.run_id, b.run_id}
    assert [r.run_id for r in toy.find_runs(a.run_id)] == [a.run_id]
    assert [r.run_id for r in toy.find_runs(a.run_id[:6])] == [a.run_id]
    with pytest.raises(StoreError, match="unknown run 'missing'.*shared"):
        toy.find_runs("missing")


def test_unknown_run_is_a_clear_error(toy: Store) -> None:
    known = toy.ensure_run(spec())
    for call in (lambda: toy.results("0123456789abcdef"),
                 lambda: toy.finished_query_ids("0123456789abcdef"),
                 lambda: toy.record_result("0123456789abcdef", result("q0"))):
        with pytest.raises(StoreError, match=f"unknown run '0123456789abcdef'.*{known.run_id}"):
            call()


def test_trace_must_be_json(toy: Store) -> None:
    run_id = toy.ensure_run(spec()).run_id
    bad = QueryResult("q0", "x", (), {"obj": object()}, Usage())
    with pytest.raises(StoreError, match="question 'q0'.*not JSON-serialisable"):
        toy.record_result(run_id, bad)
    assert toy.results(run_id) == []


def test_replaced_dataset_does_not_reuse_old_results(toy: Store,
                                                     make_corpus: Callable[..., Corpus]) -> None:
    toy.ensure_run(spec())
    toy.add_corpus(make_corpus("toy", n_paragraphs=9, n_queries=5), replace=True)
    with pytest.raises(StoreError, match="re-ingested"):
        toy.ensure_run(spec())
    fresh = spec(config={**BASE_CONFIG, "corpus_fingerprint": toy.fingerprint("toy")})
    assert toy.ensure_run(fresh).finished == 0


def test_concurrent_writers_do_not_lose_results(toy: Store) -> None:
    run_id = toy.ensure_run(spec()).run_id
    ids = [f"c{i}" for i in range(60)]
    with ThreadPoolExecutor(max_workers=6) as pool:
        list(pool.map(lambda qid: toy.record_result(run_id, result(qid)), ids))
    assert toy.finished_query_ids(run_id) == set(ids)


def test_forgotten_results_are_answered_again_on_resume(toy: Store) -> None:
    run = toy.ensure_run(spec())
    for query_id in ("q0", "q1", "q2"):
        toy.record_result(run.run_id, result(query_id))
    assert toy.forget_results(run.run_id, ["q1", "q4", "q2"]) == 2   # q4 has no result
    assert toy.finished_query_ids(run.run_id) == {"q0"}
    assert [r.query_id for r in toy.results(run.run_id)] == ["q0"]
    assert toy.forget_results(run.run_id, []) == 0
    with pytest.raises(StoreError, match="unknown|no run"):
        toy.forget_results("0" * 16, ["q0"])
