"""Methods' summaries: typed, stored as the keys they always were, read back from stored results."""

from __future__ import annotations

import json

import pytest

from hopkit.llm.fake import ScriptedLLM
from hopkit.llm.meter import MeteredLLM
from hopkit.methods.migres.steps import MIGRESSummary
from hopkit.methods.nor.method import NoR
from hopkit.methods.reader_steps import NoRSummary, OneRSummary
from hopkit.methods.searchain.steps import SearChainSummary
from hopkit.records import Query
from hopkit.pipelines.runner import answer_one
from hopkit.traces import TraceError

pytestmark = pytest.mark.unit

MIGRES_STORED = {"iterations": 2, "stop_reason": "answered", "confidence": 5,
                 "llm_calls": {"main": 2, "total": 5}, "passages_used": 2, "knowledge_tokens": 40,
                 "knowledge_prompts": 0, "reranked_passages": 3, "seconds": {"main": 0.1},
                 "queries": ["q", "q2"], "known_information": ["a", "b"], "typed_trace": {"schema_version": 1}}


def test_nor_returns_its_typed_summary_and_the_runner_stores_the_same_keys_as_before() -> None:
    query = Query(id="q1", text="When was Velmora Ironworks founded?")
    result, failure = answer_one(NoR(MeteredLLM(ScriptedLLM(["1871"]))), query)
    assert failure is None
    assert result.trace["reader_generation"] == "1871" and set(result.trace) == {"reader_generation", "typed_trace"}
    assert NoRSummary.from_result_trace(result.trace) == NoRSummary(reader_generation="1871")


def test_a_summary_reads_as_the_mapping_it_stores() -> None:
    summary = OneRSummary(reader_generation="Ada Quill.", retrieved_titles=("A", "B"))
    assert summary["retrieved_titles"] == ["A", "B"] and dict(summary) == summary.to_json()
    assert json.loads(json.dumps(dict(summary))) == {"reader_generation": "Ada Quill.", "retrieved_titles": ["A", "B"]}


def test_migres_summary_reads_a_stored_result_and_leaves_the_cost_counters_to_the_usage_record() -> None:
    summary = MIGRESSummary.from_result_trace(MIGRES_STORED)
    assert (summary.iterations, summary.stop_reason, summary.queries, summary.reranked_passages) == (
        2, "answered", ("q", "q2"), 3)
    assert "llm_calls" not in summary and "seconds" not in summary


def test_an_older_result_without_a_later_key_reads_with_its_default() -> None:
    older = {key: value for key, value in MIGRES_STORED.items() if key != "reranked_passages"}
    assert MIGRESSummary.from_result_trace(older).reranked_passages == 0


@pytest.mark.parametrize(("stored", "named"), [
    ({"rounds": 1}, "lacks the key 'stop_reason'"),
    ({"rounds": "1", "stop_reason": "finished", "knowledge_sources": {}, "verdicts": {}, "words_in": 1,
      "words_out": 1, "final_content": "", "traceability": {}}, "SearChainSummary of a stored result.rounds"),
    ({"rounds": 1, "stop_reason": "tired", "knowledge_sources": {}, "verdicts": {}, "words_in": 1,
      "words_out": 1, "final_content": "", "traceability": {}}, ".stop_reason: expected \"finished\""),
])
def test_a_bad_summary_fails_naming_the_key(stored: dict, named: str) -> None:
    with pytest.raises(TraceError, match=named.replace(".", r"\.")):
        SearChainSummary.from_result_trace(stored)
