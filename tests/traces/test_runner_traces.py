"""The runner stores each question's typed trace; a trace JSON cannot hold fails that question, not the run."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hopkit.errors import LLMError
from hopkit.llm.fake import ScriptedLLM
from hopkit.llm.meter import MeteredLLM
from hopkit.records import Corpus, GenerationResult, Paragraph, Query
from hopkit.pipelines.runner import answer_one, run_method
from hopkit.store.connection import DBConnection
from hopkit.store.records import RunSpec
from hopkit.store.store import Store
from hopkit.traces import TRACE_KEY, Trace, cite, record_step

pytestmark = pytest.mark.unit

QUERIES = tuple(Query(id=f"q{i}", text=f"question {i}", answers=(f"a{i}",)) for i in range(4))
SPEC = RunSpec(name="scripted", method="scripted", dataset="toy", config={})
NOT_JSON = st.one_of(st.sampled_from([math.nan, math.inf, -math.inf]), st.builds(object),
                     st.sets(st.integers(), max_size=2))


class ScriptedMethod:
    """Retrieves, reads with a metered scripted model and cites; ``poison`` spoils one question's trace.

    ``poison(query_id)`` returns (where, value): "extra" puts the value in the read step's
    extra, "metadata" in the method's own metadata; None leaves the trace clean.
    """

    name = "scripted"

    def __init__(self, poison: Callable[[str], tuple[str, Any] | None] = lambda _: None,
                 failing: frozenset[str] = frozenset()) -> None:
        self.llm = MeteredLLM(ScriptedLLM(lambda prompt: "a" + prompt.split()[-1]))
        self.poison = poison
        self.failing = failing

    def generate(self, query: Query) -> GenerationResult:
        spoiled = self.poison(query.id)
        retrieved = record_step("retrieve", input=query.text, paragraph_ids=[0], scores=[1.5])
        if query.id in self.failing:
            raise LLMError("server said no")
        answer = self.llm.complete(query.text).text
        extra = {"bad": spoiled[1]} if spoiled is not None and spoiled[0] == "extra" else {}
        read = record_step("read", parent=retrieved, input=query.text, output=answer, paragraph_ids=[0], extra=extra)
        cite(read, [0], score=0.9)
        metadata = {"bad": spoiled[1]} if spoiled is not None and spoiled[0] == "metadata" else {"steps": 1}
        return GenerationResult(text=answer, chunk_ids=(0,), metadata=metadata)


def make_store(path: Path) -> Store:
    store = Store(DBConnection(f"sqlite:///{path}").get_session_factory())
    store.add_corpus(Corpus("toy", (Paragraph(0, "T", "text"),), QUERIES))
    return store


def test_the_typed_trace_is_stored_beside_the_methods_metadata(tmp_path: Path) -> None:
    store = make_store(tmp_path / "db.sqlite")
    outcome = run_method(ScriptedMethod(), QUERIES, store, SPEC, progress=False)
    stored = {r.query_id: r for r in store.results(outcome.run_id)}["q1"]
    assert stored.error is None and stored.trace["steps"] == 1
    trace = Trace.from_result_trace(stored.trace)
    assert [(s.kind, s.parent, s.llm_calls) for s in trace.steps] == [("retrieve", None, 0), ("read", 1, 1)]
    assert trace.steps[0].scores == (1.5,) and trace.steps[1].output == "a1"
    assert [(c.step, c.paragraph_ids, c.score) for c in trace.citations] == [(2, (0,), 0.9)]


def test_a_failed_question_keeps_the_steps_it_reached() -> None:
    result, failure = answer_one(ScriptedMethod(failing=frozenset({"q0"})), QUERIES[0])
    assert isinstance(failure, LLMError)
    assert [step["kind"] for step in result.trace[TRACE_KEY]["steps"]] == ["retrieve"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bad=NOT_JSON, where=st.sampled_from(["extra", "metadata"]), victim=st.sampled_from([q.id for q in QUERIES]))
def test_a_trace_json_cannot_hold_fails_its_question_and_the_run_goes_on(tmp_path_factory: pytest.TempPathFactory,
                                                                          bad: Any, where: str, victim: str) -> None:
    store = make_store(tmp_path_factory.mktemp("run") / "db.sqlite")
    method = ScriptedMethod(poison=lambda qid: (where, bad) if qid == victim else None)
    outcome = run_method(method, QUERIES, store, SPEC, progress=False)
    assert (outcome.finished, outcome.failed) == (len(QUERIES) - 1, 1)
    results = {r.query_id: r for r in store.results(outcome.run_id)}
    failed = results[victim]
    path = f"trace.{TRACE_KEY}.steps[1].extra.bad" if where == "extra" else "trace.bad"
    assert failed.error is not None and failed.error.startswith(f"TraceError: question {victim}: ")
    assert f"{path} is " in failed.error
    assert failed.trace == {}
    assert all(r.error is None and TRACE_KEY in r.trace for qid, r in results.items() if qid != victim)


def test_a_bad_trace_is_retried_by_the_next_run(tmp_path: Path) -> None:
    store = make_store(tmp_path / "db.sqlite")
    run_method(ScriptedMethod(poison=lambda qid: ("extra", math.nan) if qid == "q2" else None), QUERIES, store,
               SPEC, progress=False)
    outcome = run_method(ScriptedMethod(), QUERIES, store, SPEC, progress=False)
    assert (outcome.already_done, outcome.finished, outcome.failed) == (3, 1, 0)


def test_prompts_are_kept_in_the_steps_only_when_asked_for(tmp_path: Path) -> None:
    store = make_store(tmp_path / "db.sqlite")
    plain = run_method(ScriptedMethod(), QUERIES[:1], store, SPEC, progress=False)
    kept = run_method(ScriptedMethod(), QUERIES[:1], store, RunSpec("p", "scripted", "toy", {"p": 1}), progress=False,
                      trace_prompts=True)
    plain_steps = Trace.from_result_trace(store.results(plain.run_id)[0].trace).steps
    kept_steps = Trace.from_result_trace(store.results(kept.run_id)[0].trace).steps
    assert all("prompts" not in step.extra for step in plain_steps)
    assert "prompts" not in kept_steps[0].extra  # the retrieval made no model call
    assert kept_steps[1].extra["prompts"] == ["question 0"]


def test_a_chat_calls_messages_are_kept_as_role_and_content() -> None:
    from hopkit.llm.protocol import ChatMessage
    from hopkit.traces import collect_trace

    llm = MeteredLLM(ScriptedLLM(["fine", "more"], chat=True))
    with collect_trace(prompts=True) as trace:
        llm.complete_chat([ChatMessage("system", "Be brief."), ChatMessage("user", "How are you?")])
        llm.complete("and then?")
        record_step("read", output="fine")
        record_step("reason", output="nothing asked")
    assert trace.steps[0].extra["prompts"] == [
        [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "How are you?"}], "and then?"]
    assert "prompts" not in trace.steps[1].extra
