import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from hopkit.errors import LLMError, StoreError
from hopkit.records import Corpus, GenerationResult, Paragraph, Query
from hopkit.pipelines.runner import run_method
from hopkit.store.connection import DBConnection
from hopkit.store.records import RunSpec
from hopkit.store.store import Store
from hopkit.usage import current_usage, usage_component

pytestmark = pytest.mark.unit

QUERIES = tuple(Query(id=f"q{i}", text=f"question {i}", answers=(f"a{i}",)) for i in range(6))


def make_store(path: Path) -> Store:
    store = Store(DBConnection(f"sqlite:///{path}").get_session_factory())
    store.add_corpus(Corpus("toy", (Paragraph(0, "T", "text"),), QUERIES))
    return store


class EchoMethod:
    """Answers a{i}; fails on the ids in ``failing``; reports fake usage."""

    name = "echo"

    def __init__(self, failing: set[str] = frozenset()) -> None:
        self.failing = set(failing)
        self.calls: list[str] = []

    def generate(self, query: Query) -> GenerationResult:
        self.calls.append(query.id)
        usage = current_usage()
        assert usage is not None
        usage.add_llm(prompt_tokens=10, completion_tokens=2, seconds=0.5)
        usage.add_retrieval(0.25)
        if query.id in self.failing:
            raise LLMError("server said no")
        return GenerationResult(text="a" + query.id[1:], chunk_ids=(0,), metadata={"steps": 1})


SPEC = RunSpec(name="echo", method="echo", dataset="toy", config={"k": 1})


def test_results_are_stored_with_their_usage_and_failures_recorded(tmp_path: Path) -> None:
    store = make_store(tmp_path / "db.sqlite")
    outcome = run_method(EchoMethod(failing={"q2"}), QUERIES, store, SPEC, progress=False)
    assert (outcome.finished, outcome.failed, outcome.already_done) == (5, 1, 0)
    results = {r.query_id: r for r in store.results(outcome.run_id)}
    assert results["q3"].prediction == "a3" and results["q3"].chunk_ids == (0,)
    usage = results["q3"].usage
    assert usage.llm_calls == 1 and usage.prompt_tokens == 10
    assert usage.llm_seconds == 0.5 and usage.retrieval_seconds == 0.25
    assert usage.total_seconds > 0 and results["q2"].usage.llm_calls == 1  # a failure's cost is kept
    assert "LLMError: server said no" in (results["q2"].error or "")


class JudgingMethod:
    """Times a judge inside each question, as the methods with judges do."""

    name = "judging"

    def generate(self, query: Query) -> GenerationResult:
        with usage_component("judge:relevance"):
            time.sleep(0.01)
        return GenerationResult(text="a", chunk_ids=(), metadata={})


def test_judge_components_are_stored_with_the_result(tmp_path: Path) -> None:
    store = make_store(tmp_path / "db.sqlite")
    outcome = run_method(JudgingMethod(), QUERIES[:2], store, SPEC, progress=False)
    for result in store.results(outcome.run_id):
        judge = result.usage.components["judge:relevance"]
        assert judge.calls == 1 and 0.01 <= judge.seconds <= result.usage.total_seconds


def test_resume_redoes_only_unfinished_and_failed_questions(tmp_path: Path) -> None:
    store = make_store(tmp_path / "db.sqlite")
    run_method(EchoMethod(failing={"q2"}), QUERIES[:4], store, SPEC, progress=False)
    second = EchoMethod()
    outcome = run_method(second, QUERIES, store, SPEC, progress=False)
    assert second.calls == ["q2", "q4", "q5"]
    assert outcome.already_done == 3 and outcome.failed == 0
    assert sorted(r.query_id for r in store.results(outcome.run_id) if r.error is None) == [q.id for q in QUERIES]


def test_changing_an_option_starts_a_new_run(tmp_path: Path) -> None:
    store = make_store(tmp_path / "db.sqlite")
    first = run_method(EchoMethod(), QUERIES, store, SPEC, progress=False)
    other = RunSpec(name="echo", method="echo", dataset="toy", config={"k": 2})
    method = EchoMethod()
    second = run_method(method, QUERIES, store, other, progress=False)
    assert first.run_id != second.run_id and len(method.calls) == len(QUERIES)


def test_concurrent_workers_store_every_question_once(tmp_path: Path) -> None:
    store = make_store(tmp_path / "db.sqlite")
    outcome = run_method(EchoMethod(), QUERIES, store, SPEC, workers=3, progress=False)
    assert outcome.finished == len(QUERIES)
    assert len(store.results(outcome.run_id)) == len(QUERIES)


SLOW_RUN = textwrap.dedent("""
    import time
    from hopkit.records import GenerationResult, Query
    from hopkit.pipelines.runner import run_method
    from hopkit.store.connection import DBConnection
    from hopkit.store.records import RunSpec
    from hopkit.store.store import Store

    class Slow:
        name = "echo"
        def generate(self, query):
            time.sleep(0.4)
            return GenerationResult(text="a" + query.id[1:])

    queries = [Query(id=f"q{{i}}", text=f"question {{i}}") for i in range({n})]
    spec = RunSpec(name="echo", method="echo", dataset="toy", config={config!r})
    store = Store(DBConnection("sqlite:///" + {db!r}).get_session_factory())
    run_method(Slow(), queries, store, spec, progress=False)
""")


def test_a_killed_run_resumes_without_losing_or_redoing_finished_questions(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    store = make_store(db)
    script = SLOW_RUN.format(n=len(QUERIES), config=dict(SPEC.config), db=str(db))
    process = subprocess.Popen([sys.executable, "-c", script], env={**os.environ})
    run_id = SPEC.run_id
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        time.sleep(0.1)
        try:
            if len(store.finished_query_ids(run_id)) >= 2:
                break
        except Exception:
            continue
    process.send_signal(signal.SIGKILL)
    process.wait()
    finished_before = store.finished_query_ids(run_id)
    assert 2 <= len(finished_before) < len(QUERIES)
    resumed = EchoMethod()
    outcome = run_method(resumed, QUERIES, store, SPEC, progress=False)
    assert not set(resumed.calls) & finished_before
    assert outcome.already_done == len(finished_before)
    assert store.finished_query_ids(run_id) == {q.id for q in QUERIES}


def test_local_llama_models_answer_one_question_at_a_time() -> None:
    from hopkit.llm.llama_cpp import LlamaCppLLM
    from hopkit.llm.protocol import CONCURRENT_CALLS

    assert CONCURRENT_CALLS not in LlamaCppLLM.capabilities


def test_servers_take_concurrent_questions_through_the_cache_and_meter_and_scripts_do_not(tmp_path: Path) -> None:
    from hopkit.llm.cache import CachedLLM
    from hopkit.llm.fake import ScriptedLLM
    from hopkit.llm.meter import MeteredLLM
    from hopkit.llm.openai_compat import OpenAICompatibleLLM
    from hopkit.pipelines.base import supports_concurrency

    server = OpenAICompatibleLLM("http://127.0.0.1:9/v1", "some-model")
    assert supports_concurrency(MeteredLLM(CachedLLM(server, tmp_path / "cache.sqlite")))
    assert not supports_concurrency(MeteredLLM(ScriptedLLM(["a"])))  # a script is answered in call order


def test_a_server_that_keeps_failing_stops_the_run_and_keeps_what_was_stored(tmp_path: Path) -> None:
    from hopkit.errors import LLMServerError

    class DownAfterTwo(EchoMethod):
        def generate(self, query: Query) -> GenerationResult:
            if int(query.id[1:]) >= 2:
                raise LLMServerError("http://127.0.0.1:1/v1/completions: connection refused after 4 retries")
            return super().generate(query)

    store = make_store(tmp_path / "db.sqlite")
    with pytest.raises(LLMServerError, match=r"3 questions in a row .*127\.0\.0\.1:1"):
        run_method(DownAfterTwo(), QUERIES, store, SPEC, progress=False)
    assert store.finished_query_ids(SPEC.run_id) == {"q0", "q1"}


def test_each_answer_is_stored_as_it_finishes_not_behind_a_slow_question(tmp_path: Path) -> None:
    """Issue item 3: with pool.map, finished answers waited in submission order behind q0."""
    release = threading.Event()

    class FirstIsSlow(EchoMethod):
        def generate(self, query: Query) -> GenerationResult:
            if query.id == "q0":
                release.wait(30)
            return super().generate(query)

    store = make_store(tmp_path / "db.sqlite")
    outcome: list[object] = []
    runner = threading.Thread(target=lambda: outcome.append(
        run_method(FirstIsSlow(), QUERIES, store, SPEC, workers=3, progress=False)))
    runner.start()
    try:
        deadline = time.monotonic() + 10
        stored: set[str] = set()
        while time.monotonic() < deadline and len(stored) < len(QUERIES) - 1:
            time.sleep(0.05)
            try:
                stored = store.finished_query_ids(SPEC.run_id)
            except StoreError:  # the run is not registered yet
                continue
        assert stored == {q.id for q in QUERIES[1:]}  # q0 still in flight
    finally:
        release.set()
        runner.join(30)
    assert store.finished_query_ids(SPEC.run_id) == {q.id for q in QUERIES}


@pytest.mark.parametrize("empty", ["", "  \n"])
def test_an_empty_final_answer_is_a_failure_kept_with_its_trace_and_retried(tmp_path: Path, empty: str) -> None:
    """Issue item 4: an empty answer was stored as a successful answer and never retried."""

    class SaysNothingOnQ2(EchoMethod):
        def generate(self, query: Query) -> GenerationResult:
            result = super().generate(query)
            if query.id == "q2":
                return GenerationResult(text=empty, chunk_ids=(0,), metadata={"generation": empty})
            return result

    store = make_store(tmp_path / "db.sqlite")
    outcome = run_method(SaysNothingOnQ2(), QUERIES, store, SPEC, workers=2, progress=False)
    assert (outcome.finished, outcome.failed) == (5, 1)
    assert outcome.first_error is not None and "EmptyAnswerError" in outcome.first_error
    failed = {r.query_id: r for r in store.results(SPEC.run_id)}["q2"]
    assert failed.error is not None and "no answer to question q2" in failed.error
    assert failed.trace == {"generation": empty} and failed.chunk_ids == (0,)  # what the model said is kept
    again = EchoMethod()
    run_method(again, QUERIES, store, SPEC, progress=False)
    assert again.calls == ["q2"]
    assert store.finished_query_ids(SPEC.run_id) == {q.id for q in QUERIES}


def test_keep_failed_leaves_the_failures_a_greedy_rerun_repeats_and_retries_the_others(tmp_path: Path) -> None:
    """An empty answer stays failed on resume with keep_failed; a model that failed by raising is asked again."""

    class SaysNothingOnQ2(EchoMethod):
        def generate(self, query: Query) -> GenerationResult:
            result = super().generate(query)
            return GenerationResult(text="", chunk_ids=(0,)) if query.id == "q2" else result

    store = make_store(tmp_path / "db.sqlite")
    first = run_method(SaysNothingOnQ2(failing={"q4"}), QUERIES, store, SPEC, progress=False)
    assert (first.finished, first.failed, first.kept_failed) == (4, 2, 0)
    again = EchoMethod()
    outcome = run_method(again, QUERIES, store, SPEC, progress=False, keep_failed=True)
    assert again.calls == ["q4"]
    assert (outcome.already_done, outcome.kept_failed, outcome.finished, outcome.failed) == (5, 1, 1, 0)
    assert store.finished_query_ids(SPEC.run_id) == {q.id for q in QUERIES} - {"q2"}
    without = EchoMethod()
    run_method(without, QUERIES, store, SPEC, progress=False)
    assert without.calls == ["q2"]
