"""The usage record: components, timed_component, JSON round trip."""

from __future__ import annotations

import json
import math
import time

import pytest

from hopkit.errors import UsageError
from hopkit.usage import ComponentUsage, Usage, current_usage, timed_component, track_usage

pytestmark = pytest.mark.unit


def test_meter_counters_land_in_their_components() -> None:
    usage = Usage()
    usage.add_llm(120, 30, 0.75, cached_prompt_tokens=100)
    usage.add_llm(80, 10, 0.25)
    usage.add_retrieval(0.2)
    assert usage.components == {"model": ComponentUsage(2, 1.0), "retrieval": ComponentUsage(1, 0.2)}
    assert (usage.llm_calls, usage.llm_seconds, usage.retrieval_calls, usage.retrieval_seconds) == (2, 1.0, 1, 0.2)
    assert (usage.prompt_tokens, usage.completion_tokens, usage.cached_prompt_tokens) == (200, 40, 100)
    assert usage.calls("judge:relevance") == 0 and usage.seconds("judge:relevance") == 0.0


def test_other_seconds_is_the_wall_time_outside_every_component() -> None:
    usage = Usage(total_seconds=2.0, components={"model": ComponentUsage(1, 1.2),
                                                 "judge:relevance": ComponentUsage(2, 0.3)})
    assert usage.other_seconds == pytest.approx(0.5)
    assert Usage(total_seconds=1.0, components={"model": ComponentUsage(2, 1.5)}).other_seconds == 0.0


def test_track_usage_measures_the_block_and_closes_it() -> None:
    with track_usage() as usage:
        assert current_usage() is usage
        time.sleep(0.01)
    assert current_usage() is None
    assert usage.total_seconds >= 0.01


def test_timed_component_adds_a_call_and_its_seconds() -> None:
    with track_usage() as usage:
        for _ in range(2):
            with timed_component("judge:relevance"):
                time.sleep(0.01)
    entry = usage.components["judge:relevance"]
    assert entry.calls == 2 and 0.02 <= entry.seconds <= usage.total_seconds


def test_timed_component_does_not_count_nested_components_twice() -> None:
    """An LLM-prompted judge: its model call counts under "model", the rest under the judge."""
    with track_usage() as usage:
        with timed_component("judge:support"):
            time.sleep(0.01)
            usage.add_llm(10, 1, 5.0)  # as the LLM meter would, for a call inside the judge
    assert usage.llm_seconds == 5.0
    assert usage.components["judge:support"] == ComponentUsage(1, 0.0)  # 0.01 s wall, 5 s nested: clipped
    with track_usage() as usage:
        with timed_component("judge:outer"):
            with timed_component("judge:inner"):
                time.sleep(0.02)
    inner, outer = usage.seconds("judge:inner"), usage.seconds("judge:outer")
    assert inner >= 0.02 and outer < 0.02
    assert inner + outer <= usage.total_seconds


def test_timed_component_counts_a_call_that_raises() -> None:
    with track_usage() as usage, pytest.raises(RuntimeError):
        with timed_component("judge:relevance"):
            raise RuntimeError("model file missing")
    assert usage.calls("judge:relevance") == 1


def test_timed_component_outside_a_block_does_nothing() -> None:
    with timed_component("judge:relevance"):
        pass
    assert current_usage() is None
    with pytest.raises(UsageError, match="non-empty string"):
        with timed_component(""):
            pass


def test_json_round_trip() -> None:
    usage = Usage(2400, 60, 1900, 12.5, {"model": ComponentUsage(3, 12.1), "retrieval": ComponentUsage(3, 0.02),
                                         "judge:relevance": ComponentUsage(4, 0.1 + 0.2)})
    data = json.loads(json.dumps(usage.to_dict(), allow_nan=False))
    assert data["components"]["model"] == {"calls": 3, "seconds": 12.1}
    assert Usage.from_dict(data) == usage


def test_from_dict_is_tolerant_of_missing_keys() -> None:
    assert Usage.from_dict({}) == Usage()
    usage = Usage.from_dict({"prompt_tokens": 5, "components": {"model": {"calls": 1}, "retrieval": {}}})
    assert usage == Usage(prompt_tokens=5, components={"model": ComponentUsage(1, 0.0),
                                                       "retrieval": ComponentUsage(0, 0.0)})


@pytest.mark.parametrize("data, field", [
    ({"total_seconds": math.nan}, "'total_seconds'"),
    ({"components": {"model": {"calls": 1, "seconds": math.inf}}}, "'components.model.seconds'"),
    ({"prompt_tokens": 1.5}, "'prompt_tokens'"),
    ({"completion_tokens": -1}, "'completion_tokens'"),
    ({"components": {"judge:x": {"calls": "2"}}}, "'components.judge:x.calls'"),
    ({"components": {"model": 3}}, "'components.model'"),
    ({"components": [1]}, "'components'"),
])
def test_from_dict_rejects_bad_values_naming_the_field(data: dict, field: str) -> None:
    with pytest.raises(UsageError, match=field):
        Usage.from_dict(data)


def test_to_dict_rejects_non_finite_seconds() -> None:
    usage = Usage()
    usage.add_retrieval(math.nan)
    with pytest.raises(UsageError, match="'components.retrieval.seconds'.*finite"):
        usage.to_dict()


def test_copy_is_independent() -> None:
    usage = Usage(components={"model": ComponentUsage(1, 1.0)})
    copy = usage.copy()
    usage.add_llm(1, 1, 1.0)
    assert copy.components == {"model": ComponentUsage(1, 1.0)} and usage.llm_calls == 2
