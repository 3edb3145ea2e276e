"""Steps, citations and the trace's JSON form: what they accept, what they refuse, round trips."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hopkit.traces import SCHEMA_VERSION, TRACE_KEY, Citation, Step, Trace, TraceError

pytestmark = pytest.mark.unit

JSON_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10**15, 10**15),
                         st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=20))
JSON_VALUES = st.recursive(JSON_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)), max_leaves=12)
IDS = st.lists(st.integers(0, 10**9), max_size=6)
KIND = st.sampled_from(["retrieve", "reason", "read", "extract", "verify", "scope", "rerank"])


@st.composite
def traces(draw: st.DrawFn) -> Trace:
    """A trace of 0-6 steps with JSON values, valid parents and scores, and citations of its steps."""
    trace = Trace()
    for number in range(1, draw(st.integers(0, 6)) + 1):
        ids = draw(IDS)
        scores = draw(st.one_of(
            st.just([]), st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=len(ids),
                                  max_size=len(ids)),
            st.dictionaries(st.text(max_size=6), st.floats(allow_nan=False, allow_infinity=False), max_size=3)))
        parent = draw(st.one_of(st.none(), st.integers(1, number - 1))) if number > 1 else None
        trace.add_step(draw(KIND), parent=parent,
                       input=draw(JSON_VALUES), output=draw(JSON_VALUES), paragraph_ids=ids, scores=scores,
                       llm_calls=draw(st.integers(0, 5)),
                       extra=draw(st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=3)))
    for _ in range(draw(st.integers(0, 3)) if trace.steps else 0):
        trace.add_citation(draw(st.integers(1, len(trace.steps))), draw(IDS),
                           claim=draw(st.one_of(st.none(), st.text(max_size=20))),
                           score=draw(st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False))))
    return trace


@settings(max_examples=100, deadline=None)
@given(traces())
def test_any_trace_of_json_values_round_trips_through_json(trace: Trace) -> None:
    text = json.dumps(trace.to_json(), allow_nan=False)
    again = Trace.from_json(json.loads(text))
    assert again == trace
    assert again.to_json() == trace.to_json()


def test_the_json_form_has_every_field() -> None:
    trace = Trace()
    first = trace.add_step("retrieve", input="q", paragraph_ids=[4, 9], scores=[2.5, 1.0])
    trace.add_step("read", parent=first.id, output="Germany", llm_calls=1, extra={"generation": "Germany"})
    trace.add_citation(2, [4], score=0.75)
    assert trace.to_json() == {
        "schema_version": SCHEMA_VERSION,
        "steps": [{"id": 1, "parent": None, "kind": "retrieve", "input": "q", "output": None, "paragraph_ids": [4, 9],
                   "scores": [2.5, 1.0], "llm_calls": 0, "extra": {}},
                  {"id": 2, "parent": 1, "kind": "read", "input": None, "output": "Germany", "paragraph_ids": [],
                   "scores": [], "llm_calls": 1, "extra": {"generation": "Germany"}}],
        "citations": [{"step": 2, "claim": None, "paragraph_ids": [4], "score": 0.75}],
    }


@pytest.mark.parametrize(("fields", "message"), [
    ({"id": 0, "kind": "read"}, "id must be an integer >= 1"),
    ({"id": 1, "kind": " "}, "kind must be a non-empty string"),
    ({"id": 2, "kind": "read", "parent": 2}, "parent must be the id of an earlier step"),
    ({"id": 2, "kind": "read", "parent": True}, "parent must be the id of an earlier step"),
    ({"id": 1, "kind": "read", "paragraph_ids": [1]}, "paragraph_ids must be a tuple"),
    ({"id": 1, "kind": "read", "paragraph_ids": ("1",)}, "paragraph_ids must be a tuple"),
    ({"id": 1, "kind": "read", "paragraph_ids": (1, 2), "scores": (0.5,)}, "1 scores for 2 paragraph ids"),
    ({"id": 1, "kind": "read", "scores": {"a": "high"}}, "every score must be a number"),
    ({"id": 1, "kind": "read", "scores": [0.5]}, "scores must be a tuple"),
    ({"id": 1, "kind": "read", "llm_calls": -1}, "llm_calls must be an integer >= 0"),
    ({"id": 1, "kind": "read", "extra": {1: "x"}}, "extra must be a mapping with string keys"),
])
def test_a_malformed_step_is_refused_with_its_field_named(fields: dict, message: str) -> None:
    with pytest.raises(TraceError, match=message):
        Step(**fields)


def test_a_malformed_citation_is_refused() -> None:
    with pytest.raises(TraceError, match="claim must be a string"):
        Citation(step=1, paragraph_ids=(1,), claim=3)  # type: ignore[arg-type]
    with pytest.raises(TraceError, match="score must be a number"):
        Citation(step=1, paragraph_ids=(1,), score="high")  # type: ignore[arg-type]
    trace = Trace()
    trace.add_step("read")
    with pytest.raises(TraceError, match="names step 2, but only 1 steps are recorded"):
        trace.add_citation(2, [1])


def test_steps_are_numbered_in_recording_order_and_a_trace_is_falsy_until_something_is_recorded() -> None:
    trace = Trace()
    assert not trace
    assert [trace.add_step("reason").id for _ in range(3)] == [1, 2, 3]
    assert trace and [step.id for step in trace.steps] == [1, 2, 3]


@pytest.mark.parametrize(("data", "message"), [
    ([], "schema_version 1, got 'list'"),
    ({"schema_version": 99, "steps": [], "citations": []}, "schema_version 1, got 99"),
    ({"schema_version": 1, "steps": {}, "citations": []}, "'steps' must be a list"),
    ({"schema_version": 1, "steps": [{"id": 1}], "citations": []}, r"steps\[0\] lacks the fields parent, kind"),
    ({"schema_version": 1, "steps": [{"id": 2, "parent": None, "kind": "read", "input": None, "output": None,
                                      "paragraph_ids": [], "scores": [], "llm_calls": 0, "extra": {}}],
      "citations": []}, "ids must be 1, 2, ... in order"),
])
def test_from_json_refuses_what_is_not_a_trace(data: object, message: str) -> None:
    with pytest.raises(TraceError, match=message):
        Trace.from_json(data)


def test_a_stored_result_trace_without_a_typed_trace_gives_an_empty_one() -> None:
    assert not Trace.from_result_trace({"steps": 3})
    trace = Trace()
    trace.add_step("read", output="x")
    assert Trace.from_result_trace({"steps": 3, TRACE_KEY: trace.to_json()}) == trace


def test_numpy_ids_and_scores_become_plain_numbers() -> None:
    numpy = pytest.importorskip("numpy")
    step = Trace().add_step("retrieve", paragraph_ids=[numpy.int64(3), 4],
                            scores=[numpy.float32(1.5), numpy.float64(2.0)])
    assert step.paragraph_ids == (3, 4) and step.scores == (1.5, 2.0)
    assert [type(value) for value in (*step.paragraph_ids, *step.scores)] == [int, int, float, float]
    json.dumps(step.to_json(), allow_nan=False)
