"""Collecting steps on the side: no-op outside a block, per-thread blocks, model calls per step."""

from __future__ import annotations

import threading

import pytest

from hopkit.llm.fake import ScriptedLLM
from hopkit.llm.meter import MeteredLLM
from hopkit.traces import TraceError, cite, collect_trace, current_trace, record_step
from hopkit.usage import track_usage

pytestmark = pytest.mark.unit


def test_outside_a_block_nothing_is_recorded_and_no_id_is_given() -> None:
    assert current_trace() is None
    assert record_step("read", output="x") is None
    cite(None, [1])  # nothing to cite into: a no-op


def test_steps_and_citations_go_to_the_open_block_with_their_parents() -> None:
    with collect_trace() as trace:
        assert current_trace() is trace
        retrieved = record_step("retrieve", input="q", paragraph_ids=[3, 1], scores=[2.0, 1.5])
        read = record_step("read", parent=retrieved, input="q", output="a", paragraph_ids=[3, 1])
        cite(read, [3], claim="a", score=0.5)
    assert current_trace() is None
    assert [(s.id, s.parent, s.kind) for s in trace.steps] == [(1, None, "retrieve"), (2, 1, "read")]
    assert trace.steps[0].scores == (2.0, 1.5)
    assert [(c.step, c.paragraph_ids, c.claim, c.score) for c in trace.citations] == [(2, (3,), "a", 0.5)]


def test_a_step_counts_the_model_calls_made_since_the_previous_step() -> None:
    llm = MeteredLLM(ScriptedLLM(["a", "b", "c", "d"]))
    with track_usage(), collect_trace() as trace:
        llm.complete("1")
        first = record_step("scope")
        record_step("retrieve", parent=first)
        llm.complete("2")
        llm.complete("3")
        record_step("reason")
        llm.complete("4")
        record_step("read", llm_calls=7)  # given explicitly, it is taken as given
        record_step("extract")
    assert [s.llm_calls for s in trace.steps] == [1, 0, 2, 7, 0]


def test_without_a_usage_block_steps_count_no_model_calls() -> None:
    llm = MeteredLLM(ScriptedLLM(["a"]))
    with collect_trace() as trace:
        llm.complete("1")
        record_step("reason")
    assert trace.steps[0].llm_calls == 0


def test_a_usage_block_opened_inside_the_trace_block_counts_from_zero() -> None:
    llm = MeteredLLM(ScriptedLLM(["a", "b"]))
    with collect_trace() as trace, track_usage():
        llm.complete("1")
        llm.complete("2")
        record_step("reason")
    assert trace.steps[0].llm_calls == 2


def test_concurrent_questions_never_mix_their_steps() -> None:
    seen: dict[str, list[str]] = {}
    barrier = threading.Barrier(2)

    def question(name: str) -> None:
        with collect_trace() as trace:
            record_step("retrieve", input=name)
            barrier.wait()
            record_step("read", input=name)
        seen[name] = [s.input for s in trace.steps]

    threads = [threading.Thread(target=question, args=(name,)) for name in ("q1", "q2")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == {"q1": ["q1", "q1"], "q2": ["q2", "q2"]}


def test_a_malformed_step_or_citation_raises_inside_the_method() -> None:
    with collect_trace():
        with pytest.raises(TraceError, match="parent must be the id of an earlier step"):
            record_step("read", parent=5)
        with pytest.raises(TraceError, match="1 scores for 2 paragraph ids"):
            record_step("retrieve", paragraph_ids=[1, 2], scores=[0.5])
        with pytest.raises(TraceError, match="needs the id of a recorded step"):
            cite(None, [1])


def test_steps_recorded_for_another_method_are_marked_with_its_name() -> None:
    """Issue 51: a router keeps the steps of the method it ran, read later with that method's types."""
    from hopkit.traces import recorded_by

    with collect_trace() as trace:
        record_step("scope", output="C")
        with recorded_by("ircot"):
            record_step("retrieve", input="q", extra={"k": 2})
        record_step("extract", output="a")
    assert [dict(step.extra) for step in trace.steps] == [{}, {"k": 2, "method": "ircot"}, {}]
