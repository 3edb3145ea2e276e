"""The usage record: labelled components, usage_component, JSON round trip (old records too)."""

from __future__ import annotations

import json
import math
import time

import pytest

from hopkit.errors import UsageError
from hopkit.usage import ComponentUsage, Usage, current_usage, open_component, track_usage, usage_component

pytestmark = pytest.mark.unit


def test_meter_counters_land_in_their_components() -> None:
    usage = Usage()
    usage.add_llm(120, 30, 0.75, cached_prompt_tokens=100)
    usage.add_llm(80, 10, 0.25)
    usage.add_retrieval(0.2)
    assert usage.components == {
        "model": ComponentUsage(calls=2, llm_calls=2, llm_seconds=1.0, prompt_tokens=200, cached_prompt_tokens=100,
                                completion_tokens=40),
        "retrieval": ComponentUsage(1, 0.2)}
    assert (usage.llm_calls, usage.llm_seconds, usage.retrieval_calls, usage.retrieval_seconds) == (2, 1.0, 1, 0.2)
    assert (usage.prompt_tokens, usage.completion_tokens, usage.cached_prompt_tokens) == (200, 40, 100)
    assert usage.calls("judge:relevance") == 0 and usage.seconds("judge:relevance") == 0.0


def test_totals_are_sums_over_the_labels() -> None:
    usage = Usage()
    usage.add_llm(100, 10, 1.0, cached_prompt_tokens=60, component="migres:leaf")
    usage.add_llm(50, 5, 0.5, component="judge:relevance")
    usage.add_llm(7, 1, 0.25)
    assert (usage.llm_calls, usage.prompt_tokens, usage.completion_tokens, usage.cached_prompt_tokens) == (
        3, 157, 16, 60)
    assert usage.llm_seconds == 1.75
    leaf = usage.components["migres:leaf"]
    assert (leaf.calls, leaf.llm_calls, leaf.prompt_tokens, leaf.total_seconds) == (0, 1, 100, 1.0)
    assert usage.calls("model") == 1  # only the unlabelled call


def test_other_seconds_is_the_wall_time_outside_every_component() -> None:
    usage = Usage(total_seconds=2.0, components={"model": ComponentUsage(1, llm_calls=1, llm_seconds=1.2),
                                                 "judge:relevance": ComponentUsage(2, 0.3)})
    assert usage.other_seconds == pytest.approx(0.5)
    assert Usage(1.0, {"model": ComponentUsage(2, llm_calls=2, llm_seconds=1.5)}).other_seconds == 0.0


def test_track_usage_measures_the_block_and_closes_it() -> None:
    with track_usage() as usage:
        assert current_usage() is usage
        time.sleep(0.01)
    assert current_usage() is None
    assert usage.total_seconds >= 0.01


def test_usage_component_adds_a_call_and_its_seconds() -> None:
    with track_usage() as usage:
        for _ in range(2):
            with usage_component("judge:relevance"):
                time.sleep(0.01)
    entry = usage.components["judge:relevance"]
    assert entry.calls == 2 and 0.02 <= entry.seconds <= usage.total_seconds


def test_model_calls_go_to_the_innermost_open_label() -> None:
    """An LLM-prompted judge: its model call, tokens and seconds count under the judge, apart from its own time."""
    with track_usage() as usage:
        assert open_component() == "model"
        with usage_component("judge:support"):
            time.sleep(0.01)
            assert open_component() == "judge:support"
            usage.add_llm(10, 1, 5.0, component=open_component())  # as the LLM meter does
        assert open_component() == "model"
    assert usage.llm_seconds == 5.0 and "model" not in usage.components
    assert usage.components["judge:support"] == ComponentUsage(1, 0.0, 1, 5.0, 10, 0, 1)  # 0.01 s wall: clipped
    with track_usage() as usage:
        with usage_component("judge:outer"):
            with usage_component("judge:inner"):
                time.sleep(0.02)
    inner, outer = usage.seconds("judge:inner"), usage.seconds("judge:outer")
    assert inner >= 0.02 and outer < 0.02
    assert inner + outer <= usage.total_seconds


def test_usage_component_counts_a_call_that_raises() -> None:
    with track_usage() as usage, pytest.raises(RuntimeError):
        with usage_component("judge:relevance"):
            raise RuntimeError("model file missing")
    assert usage.calls("judge:relevance") == 1 and open_component() == "model"


def test_usage_component_outside_a_block_counts_nothing() -> None:
    with usage_component("judge:relevance"):
        assert open_component() == "judge:relevance"
    assert current_usage() is None
    with pytest.raises(UsageError, match="non-empty string"):
        with usage_component(""):
            pass


def test_json_round_trip() -> None:
    usage = Usage(12.5, {"migres:leaf": ComponentUsage(3, 0.01, 3, 12.1, 2400, 1900, 60),
                         "retrieval": ComponentUsage(3, 0.02), "judge:relevance": ComponentUsage(4, 0.1 + 0.2)})
    data = json.loads(json.dumps(usage.to_dict(), allow_nan=False))
    assert data["components"]["migres:leaf"] == {"calls": 3, "seconds": 0.01, "llm_calls": 3, "llm_seconds": 12.1,
                                                 "prompt_tokens": 2400, "cached_prompt_tokens": 1900,
                                                 "completion_tokens": 60}
    assert (data["prompt_tokens"], data["cached_prompt_tokens"], data["completion_tokens"]) == (2400, 1900, 60)
    assert Usage.from_dict(data) == usage


#: A usage record as hopkit wrote it before components had tokens: every model call under "model".
OLD_RECORD = {"prompt_tokens": 2400, "completion_tokens": 60, "cached_prompt_tokens": 1900, "total_seconds": 12.5,
              "components": {"model": {"calls": 3, "seconds": 12.1}, "retrieval": {"calls": 3, "seconds": 0.02},
                             "judge:relevance": {"calls": 8, "seconds": 0.3}}}


def test_a_record_written_before_components_had_tokens_reads_as_the_same_cost() -> None:
    usage = Usage.from_dict(OLD_RECORD)
    assert (usage.prompt_tokens, usage.completion_tokens, usage.cached_prompt_tokens) == (2400, 60, 1900)
    assert (usage.llm_calls, usage.llm_seconds, usage.retrieval_calls, usage.retrieval_seconds) == (3, 12.1, 3, 0.02)
    assert usage.components["model"] == ComponentUsage(3, 0.0, 3, 12.1, 2400, 1900, 60)
    assert usage.components["judge:relevance"] == ComponentUsage(8, 0.3)
    assert usage.other_seconds == pytest.approx(12.5 - 12.1 - 0.02 - 0.3)
    assert Usage.from_dict(usage.to_dict()) == usage  # written again in the new shape, it stays the same


def test_from_dict_is_tolerant_of_missing_keys() -> None:
    assert Usage.from_dict({}) == Usage()
    usage = Usage.from_dict({"prompt_tokens": 5, "components": {"model": {"calls": 1}, "retrieval": {}}})
    assert usage == Usage(components={"model": ComponentUsage(1, llm_calls=1, prompt_tokens=5),
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
    usage = Usage(components={"model": ComponentUsage(1, llm_calls=1, llm_seconds=1.0)})
    copy = usage.copy()
    usage.add_llm(1, 1, 1.0)
    assert copy.components == {"model": ComponentUsage(1, llm_calls=1, llm_seconds=1.0)} and usage.llm_calls == 2


def test_components_opened_inside_another_methods_part_are_counted_under_its_name() -> None:
    """Issue 51: Adaptive-RAG runs OneR or IRCoT as its part; their costs are its own."""
    from hopkit.usage import components_of

    with track_usage() as usage:
        with usage_component("adaptive-rag:classify"):
            pass
        with components_of("adaptive-rag"):
            with usage_component("ircot:reason"):
                pass
            with components_of("inner"):
                with usage_component("read"):
                    pass
        with usage_component("after"):
            pass
    assert set(usage.components) == {"adaptive-rag:classify", "adaptive-rag:ircot:reason", "adaptive-rag:inner:read",
                                     "after"}
    with pytest.raises(UsageError, match="non-empty string"):
        with components_of(" "):
            pass


def test_nested_calls_count_a_component_also_under_the_owners_that_nested_it() -> None:
    from hopkit.usage import components_of

    with track_usage() as usage:
        with usage_component("retrieval"):
            pass
        with components_of("adaptive-rag"):
            with usage_component("retrieval"):
                pass
        with usage_component("dragin:retrieval-like"):
            pass
    assert usage.retrieval_calls == 1 and usage.nested_calls("retrieval") == 2
