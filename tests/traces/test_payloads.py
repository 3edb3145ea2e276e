"""Typed step payloads: every method's steps read through their types and write back the same JSON;
older traces read; bad data fails naming the step and the field."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable

import pytest

from hopkit.llm.fake import ScriptedLLM
from hopkit.llm.meter import MeteredLLM
from hopkit.methods.ircot.steps import Drop, IRCoTReason, IRCoTRetrieve, ircot_payload
from hopkit.methods.migres.modules import Asked
from hopkit.methods.migres.steps import (MIGRESAnswer, MIGRESFailedLeaf, MIGRESFailure, MIGRESLeaf,
                                         MIGRESRetrieve, migres_payload, record_failure)
from hopkit.methods.oner.method import OneR, OneRConfig, OneRRetrieve
from hopkit.methods.reader_steps import ReaderRead
from hopkit.methods.searchain.steps import SearChainTracing, SearChainVerify, searchain_payload
from hopkit.records import Paragraph, Query
from hopkit.retrieval.memory import InMemoryRetriever
from hopkit.traces import Step, Trace, TraceError, collect_trace
from hopkit.traces.payload import Payload
from hopkit.usage import track_usage

pytestmark = pytest.mark.unit

DOCS = Path(__file__).resolve().parents[2] / "docs" / "traces.md"
READERS: dict[str, Callable[[Step], Payload | None]] = {
    "example-trace": ircot_payload, "migres-example-trace": migres_payload,
    "searchain-example-trace": searchain_payload}


def example(marker: str) -> Trace:
    block = DOCS.read_text(encoding="utf-8").split(f"<!-- {marker} -->")[1].split(f"<!-- /{marker} -->")[0]
    return Trace.from_json(json.loads(block.split("```json")[1].split("```")[0]))


@pytest.mark.parametrize("marker", sorted(READERS))
def test_every_step_of_the_documented_examples_reads_and_writes_back_the_same_json(marker: str) -> None:
    for step in example(marker).steps:
        payload = READERS[marker](step)
        assert payload is not None and payload.kind == step.kind
        written = payload.step_fields()
        stored = {"input": step.input, "output": step.output, "extra": dict(step.extra)}
        assert json.dumps(written) == json.dumps(stored)


def test_an_ircot_retrieval_reads_as_typed_fields() -> None:
    step = example("example-trace").steps[2]
    retrieve = step.payload(IRCoTRetrieve)
    assert retrieve == IRCoTRetrieve(query="The Lost Gravity was manufactured by Mack Rides.", kept=(5,),
                                     dropped=(Drop(1, "duplicate"),), skipped=None, k=2)


def test_an_older_step_without_optional_keys_reads_with_their_defaults() -> None:
    older = Step(1, "retrieve", input="q", output={"kept": [3]}, paragraph_ids=(3,), extra={"k": 4, "prompts": ["p"]})
    assert older.payload(IRCoTRetrieve) == IRCoTRetrieve(query="q", kept=(3,), dropped=(), skipped=None, k=4)
    reason = Step(2, "reason", parent=1, output="s.", extra={"generation": "s.", "demonstrations": 2})
    assert reason.payload(IRCoTReason).stop_reason is None


@pytest.mark.parametrize(("step", "named"), [
    (Step(1, "retrieve", input="q", output={"kept": [1, "two"]}, extra={"k": 2}), "step 1 (retrieve): output.kept[1]"),
    (Step(1, "retrieve", input="q", output={"kept": []}, extra={}), "extra lacks the key 'k'"),
    (Step(1, "retrieve", input=7, output={"kept": []}, extra={"k": 2}), "step 1 (retrieve): input: expected a string"),
    (Step(1, "retrieve", input="q", output=None, extra={"k": 2}), "output must be an object holding 'kept'"),
    (Step(1, "retrieve", input="q", output={"kept": [], "dropped": [{"paragraph_id": 1}]}, extra={"k": 2}),
     "output.dropped[0]: the object lacks the key 'reason'"),
    (Step(1, "reason", output="s", extra={"generation": "s", "demonstrations": True}),
     "extra.demonstrations: expected an integer, got True"),
])
def test_bad_data_fails_naming_the_step_and_the_field(step: Step, named: str) -> None:
    with pytest.raises(TraceError, match=re.escape(named)):
        ircot_payload(step)


def test_a_step_of_another_kind_is_refused() -> None:
    with pytest.raises(TraceError, match=re.escape("step 1 (read): a IRCoTRetrieve is read from a 'retrieve' step")):
        Step(1, "read", input="q", output="a").payload(IRCoTRetrieve)


def test_migres_steps_are_told_apart_by_module_and_failure() -> None:
    steps = example("migres-example-trace").steps
    assert [type(migres_payload(step)).__name__ for step in steps] == [
        "MIGRESRetrieve", "MIGRESLeaf", "MIGRESVerify", "MIGRESUnanswerable", "MIGRESQueries", "MIGRESRetrieve",
        "MIGRESLeaf", "MIGRESVerify", "MIGRESAnswer"]
    assert steps[5].payload(MIGRESRetrieve).kept[0].sentences == 2
    assert steps[1].payload(MIGRESLeaf).facts[0].outcome == "learnt"
    assert steps[8].payload(MIGRESAnswer).module == "main"


def test_a_migres_failure_keeps_its_stored_shape_and_reads_as_a_failure() -> None:
    with collect_trace() as trace:
        record_failure("extract", "leaf", Asked(None, ("not json", "still not"), "no JSON object"), None)
        record_failure("reason", "main", Asked(None, ("?",), "bad"), 1, iteration=2)
    leaf, main = trace.steps
    assert (leaf.kind, leaf.input, leaf.output, dict(leaf.extra)) == (
        "extract", None, None, {"module": "leaf", "failed": True, "error": "no JSON object",
                                "generations": ["not json", "still not"]})
    assert list(main.extra) == ["module", "failed", "error", "generations", "iteration"]
    assert migres_payload(leaf) == MIGRESFailedLeaf(module="leaf", error="no JSON object",
                                                   generations=("not json", "still not"))
    failed_main = migres_payload(main)
    assert isinstance(failed_main, MIGRESFailure) and failed_main.iteration == 2


def test_searchain_verdicts_and_marks_read_as_types() -> None:
    steps = example("searchain-example-trace").steps
    duplicate = steps[4].payload(SearChainVerify)
    assert (duplicate.verdict, duplicate.duplicate_of, duplicate.similarity, duplicate.claim.query) == (
        "duplicate", 3, 1.0, "Who is the performer of Spirit If...?")
    tracing = steps[7].payload(SearChainTracing)
    assert [(m.number, m.paragraph_id, m.valid) for m in tracing.marks] == [(1, 1, True), (2, 2, True)]
    assert tracing.pairs[1] == ("What is the place of birth of Kevin Drew?", "Toronto")


def test_oner_records_its_steps_through_their_payloads() -> None:
    corpus = [Paragraph(0, "A", "Ada Quill founded Velmora Ironworks."), Paragraph(1, "B", "Tarsk is a town.")]
    query = Query(id="q", text="Who founded Velmora Ironworks?")
    with track_usage(), collect_trace() as trace:
        OneR(MeteredLLM(ScriptedLLM(["Ada Quill."])), InMemoryRetriever(corpus), OneRConfig(k=1)).generate(query)
    retrieve, read = trace.steps
    assert retrieve.payload(OneRRetrieve) == OneRRetrieve(query="founded Velmora Ironworks?", k=1)  # no wh-word
    assert retrieve.output is None
    assert read.payload(ReaderRead) == ReaderRead(question=query.text, answer="Ada Quill", generation="Ada Quill.")


def test_a_kind_the_method_does_not_record_has_no_payload() -> None:
    assert ircot_payload(Step(1, "verify", input="x")) is None
    step: Any = Step(1, "reason", input="q", output="text", extra={"module": "unknown"})
    assert migres_payload(step) is None


def test_a_retrieval_s_hits_give_the_step_its_paragraph_ids_and_scores_in_order() -> None:
    """``record(payload, hits=hits)``: the retrieve step every method records, written once (issue 74)."""
    from hopkit.traces.payload import record

    hits = InMemoryRetriever([Paragraph(7, "Tarsk", "Tarsk is a port."), Paragraph(3, "Orl", "The Orl flows.")]
                             ).retrieve("Tarsk port Orl flows", 2)
    with collect_trace() as trace:
        first = record(OneRRetrieve(query="Tarsk port", k=2), hits=hits)
        record(OneRRetrieve(query="again", k=2), parent=first, paragraph_ids=[h.id for h in hits],
               scores=[float(h.score) for h in hits])
    given, written = trace.steps
    assert len(hits) == 2 and tuple(given.paragraph_ids) == tuple(written.paragraph_ids) == tuple(h.id for h in hits)
    assert given.scores == written.scores and all(isinstance(score, float) for score in given.scores)
    with pytest.raises(TypeError, match="give hits or paragraph_ids and scores, not both"):
        record(OneRRetrieve(query="q", k=1), hits=hits, paragraph_ids=[7])
