"""The trace a result stores: the method's keys plus the typed trace, and the key path of what is not JSON."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hopkit.traces import TRACE_KEY, Trace, TraceError, check_json, stored_trace

pytestmark = pytest.mark.unit

JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
              st.text(max_size=10)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.tuples(inner, inner),
                            st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=15)
NOT_JSON = st.one_of(st.sampled_from([math.nan, math.inf, -math.inf]), st.builds(object),
                     st.frozensets(st.integers(), max_size=2), st.just(b"bytes"))


def one_step() -> Trace:
    trace = Trace()
    trace.add_step("read", input="q", output="a")
    return trace


def test_the_typed_trace_sits_beside_the_methods_keys() -> None:
    stored = stored_trace("q1", {"steps": 3, "cot_sentences": ["x"]}, one_step())
    assert stored["steps"] == 3 and stored["cot_sentences"] == ["x"]
    assert stored[TRACE_KEY]["steps"][0]["output"] == "a"


def test_without_recorded_steps_the_methods_keys_are_stored_alone() -> None:
    assert stored_trace("q1", {"generation": ""}, Trace()) == {"generation": ""}


def test_the_methods_metadata_may_not_take_the_typed_traces_key() -> None:
    with pytest.raises(TraceError, match=f"question q1: .*uses the key '{TRACE_KEY}'"):
        stored_trace("q1", {TRACE_KEY: {}}, Trace())


def test_metadata_that_is_not_a_mapping_is_refused() -> None:
    with pytest.raises(TraceError, match="question q1: the method's metadata must be a mapping, got list"):
        stored_trace("q1", [1, 2], Trace())


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=5))
def test_json_values_pass_and_come_back_equal_after_a_trip_through_json(metadata: dict[str, Any]) -> None:
    stored = stored_trace("q", metadata, Trace())
    check_json(stored, "q")
    assert json.loads(json.dumps(stored, allow_nan=False)) == json.loads(json.dumps(metadata))


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=4), st.data())
def test_a_value_json_cannot_hold_is_found_at_its_key_path(metadata: dict[str, Any], data: st.DataObject) -> None:
    bad = data.draw(NOT_JSON)
    nested = {"outer": metadata, "list": [1, {"inner key": bad}]}
    with pytest.raises(TraceError) as raised:
        check_json(nested, "question q7")
    message = str(raised.value)
    assert message.startswith("question q7: the trace cannot be stored as JSON: trace.list[1][\"inner key\"] is ")


@pytest.mark.parametrize(("value", "path", "problem"), [
    ({"scores": [1.0, math.nan]}, "trace.scores[1]", "nan (not a finite number)"),
    ({"a": {"b": (1, -math.inf)}}, "trace.a.b[1]", "-inf (not a finite number)"),
    ({"ids": {1, 2}}, "trace.ids", "an object of type set"),
    ({"when": object()}, "trace.when", "an object of type object"),
    ({"map": {(1, 2): "x"}}, "trace.map[(1, 2)]", "under a key of type tuple"),
    ({"map": {math.nan: "x"}}, "trace.map[nan]", "under the key nan"),
])
def test_the_error_names_the_key_path_and_what_is_wrong(value: Any, path: str, problem: str) -> None:
    with pytest.raises(TraceError) as raised:
        check_json(value, "question q1")
    assert f"{path} is {problem}" in str(raised.value)


def test_a_cycle_is_named_where_it_closes() -> None:
    looped: dict[str, Any] = {"a": []}
    looped["a"].append(looped)
    with pytest.raises(TraceError, match=r"trace\.a\[0\] is the container it sits in \(a cycle\)"):
        check_json(looped, "question q1")


def test_a_bad_value_inside_a_step_is_named_under_the_typed_trace() -> None:
    trace = Trace()
    trace.add_step("retrieve", paragraph_ids=[1, 2], scores=[1.0, math.nan])
    with pytest.raises(TraceError, match=rf"trace\.{TRACE_KEY}\.steps\[0\]\.scores\[1\] is nan"):
        stored_trace("q1", {}, trace)
