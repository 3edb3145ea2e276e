"""IRCoT's typed trace: each retrieval with what the collection kept or dropped and why, each
sentence, the reading; recording it changes nothing IRCoT does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hopkit.llm.fake import ScriptedLLM
from hopkit.llm.meter import MeteredLLM
from hopkit.methods.ircot.method import IRCoT, IRCoTConfig
from hopkit.methods.ircot.steps import IRCoTReason, IRCoTRetrieve, IRCoTSummary, ircot_payload
from hopkit.records import Paragraph, Query
from hopkit.traces import collect_trace, stored_trace
from hopkit.usage import track_usage

pytestmark = pytest.mark.unit

THREE_STEPS = ["The Lost Gravity was manufactured by Mack Rides. It opened in 2016.",
               "Mack Rides is a German company.",
               "So the answer is: Germany.",
               "Germany"]


@pytest.fixture
def traced(kit):
    """traced(script, config, corpus=..., query=..., **method_options) -> result, trace, llm"""
    def run(script, config: IRCoTConfig = IRCoTConfig(k_per_step=2, reader="direct"), corpus=None, query=None,
            **options):
        llm = ScriptedLLM(script)
        retriever = kit.RecordingRetriever(list(kit.CORPUS if corpus is None else corpus))
        options.setdefault("demonstrations", (kit.DEMO_1, kit.DEMO_2))
        options.setdefault("reader_demonstrations", (kit.READER_DEMO,))
        method = IRCoT(MeteredLLM(llm), retriever, config, **options)
        with track_usage(), collect_trace() as trace:
            result = method.generate(kit.QUESTION if query is None else query)
        return result, trace, llm
    return run


def test_the_steps_form_a_chain_retrieve_reason_retrieve_and_end_with_the_reading(traced) -> None:
    result, trace, _ = traced(THREE_STEPS)
    assert [step.kind for step in trace.steps] == ["retrieve", "reason", "retrieve", "reason", "retrieve", "reason",
                                                   "read"]
    assert [step.parent for step in trace.steps] == [None, 1, 2, 3, 4, 5, 6]
    assert [s.input for s in trace.steps if s.kind == "retrieve"] == result.metadata["queries"]
    assert [s.output for s in trace.steps if s.kind == "reason"] == result.metadata["cot_sentences"]
    assert [s.llm_calls for s in trace.steps] == [0, 1, 0, 1, 0, 1, 1]
    json.dumps(trace.to_json(), allow_nan=False)


def test_a_retrieval_records_what_the_retriever_returned_and_what_the_collection_kept_or_dropped(traced) -> None:
    result, trace, _ = traced(THREE_STEPS)
    retrievals = [s for s in trace.steps if s.kind == "retrieve"]
    assert [s.paragraph_ids for s in retrievals] == [(1, 4), (1, 5), (2, 1)]
    assert all(len(s.scores) == len(s.paragraph_ids) for s in retrievals)
    assert retrievals[1].output == {"kept": [5], "dropped": [{"paragraph_id": 1, "reason": "duplicate"}],
                                    "skipped": None}
    assert [i for s in retrievals for i in s.output["kept"]] == list(result.chunk_ids)
    assert all(s.extra == {"k": 2} for s in retrievals)


def test_drops_name_their_reason_near_duplicate_too_long_and_budget_full(kit, traced) -> None:
    long = Paragraph(7, "Lost Gravity long", "Lost Gravity manufactured " + "word " * 50)
    near = Paragraph(8, "Lost Gravity (roller coaster).", kit.LOST_GRAVITY.text + " ")
    config = IRCoTConfig(k_per_step=5, reader="direct", max_paragraph_words=20, paragraph_budget=2)
    result, trace, _ = traced(["So the answer is: Germany.", "Germany"], config, corpus=[*kit.CORPUS, long, near])
    first = trace.steps[0]
    assert first.paragraph_ids == (1, 8, 7, 4, 5)
    assert first.output == {"kept": [1, 4], "dropped": [{"paragraph_id": 8, "reason": "near_duplicate"},
                                                        {"paragraph_id": 7, "reason": "too_long"},
                                                        {"paragraph_id": 5, "reason": "budget_full"}],
                            "skipped": None}
    assert result.chunk_ids == (1, 4)


def test_a_retrieval_not_made_is_recorded_with_why(traced) -> None:
    _, empty, _ = traced(["What is which?", "So the answer is: Germany.", "Germany"])
    assert empty.steps[2].kind == "retrieve" and empty.steps[2].input == ""
    assert empty.steps[2].output == {"kept": [], "dropped": [], "skipped": "empty_query"}
    _, full, _ = traced(THREE_STEPS, IRCoTConfig(k_per_step=2, paragraph_budget=3, reader="direct"))
    assert full.steps[4].output == {"kept": [], "dropped": [], "skipped": "budget_full"}
    assert full.steps[4].paragraph_ids == () and full.steps[4].input == "Mack Rides a German company."


def test_a_reasoning_step_keeps_the_whole_line_the_prompts_paragraphs_and_why_the_loop_stopped(traced) -> None:
    _, trace, _ = traced(THREE_STEPS)
    first, last = trace.steps[1], trace.steps[5]
    assert first.output == "The Lost Gravity was manufactured by Mack Rides."
    assert first.extra == {"generation": THREE_STEPS[0], "demonstrations": 2, "stop_reason": None}
    assert first.paragraph_ids == (1, 4) and last.paragraph_ids == (1, 4, 5, 2)
    assert last.extra["stop_reason"] == "answer"


@pytest.mark.parametrize(("script", "config", "stop"), [
    (["Mack Rides is German.", "   ", "Germany"], IRCoTConfig(k_per_step=2, reader="direct"), "empty"),
    (lambda prompt: "Germany is a country.", IRCoTConfig(k_per_step=1, max_steps=2, reader="none"), "max_steps"),
])
def test_the_last_reasoning_step_says_why_the_loop_stopped(traced, script, config, stop) -> None:
    result, trace, _ = traced(script, config)
    reasons = [s for s in trace.steps if s.kind == "reason"]
    assert reasons[-1].extra["stop_reason"] == stop == result.metadata["stop_reason"]
    assert all(s.extra["stop_reason"] is None for s in reasons[:-1])
    if stop == "empty":
        assert reasons[-1].output == ""


def test_the_reading_step_holds_the_answer_the_paragraphs_read_and_the_generation(traced) -> None:
    result, trace, _ = traced(THREE_STEPS)
    read = trace.steps[-1]
    assert (read.kind, read.input, read.output) == ("read", "In what country was Lost Gravity manufactured?", "Germany")
    assert read.paragraph_ids == result.chunk_ids
    assert read.extra == {"generation": "Germany", "reader": "direct", "context": "own"}


def test_without_a_reader_the_answer_is_an_extract_step_with_no_model_call(traced) -> None:
    result, trace, _ = traced(THREE_STEPS[:3], IRCoTConfig(k_per_step=2, reader="none"))
    extract = trace.steps[-1]
    assert (extract.kind, extract.output, extract.llm_calls) == ("extract", "Germany", 0)
    assert extract.input == " ".join(result.metadata["cot_sentences"])


def test_iirc_records_its_title_step_first(kit, traced) -> None:
    main = Paragraph(20, "Lost Gravity", "Lost Gravity is a roller coaster built by Mack Rides in Walibi Holland.")
    query = Query(id="iirc1", text="In what country is the maker of Lost Gravity?", main_passage=main)

    class Matcher:
        def match(self, title: str) -> str | None:
            return {"Mack Rides GmbH": "Mack Rides"}.get(title)

    result, trace, _ = traced(['["Mack Rides GmbH", "Nowhere"]', "So the answer is: Germany.", "Germany"],
                              corpus=[*kit.CORPUS, main], query=query, title_matcher=Matcher())
    scope = trace.steps[0]
    assert (scope.kind, scope.input, scope.output, scope.llm_calls) == ("scope", query.text, ["Mack Rides"], 1)
    assert scope.extra["generated"] == ["Mack Rides GmbH", "Nowhere"]
    assert trace.steps[1].kind == "retrieve" and trace.steps[1].parent == 1
    assert trace.steps[2].paragraph_ids[0] == main.id  # the main passage is in every prompt
    assert result.metadata["iirc_titles"] == ["Mack Rides"]


def test_recording_the_trace_changes_no_prompt_and_no_answer(kit) -> None:
    def run(traced_run: bool):
        llm = ScriptedLLM(THREE_STEPS)
        method = IRCoT(llm, kit.RecordingRetriever(kit.CORPUS), IRCoTConfig(k_per_step=2), (kit.DEMO_1,),
                       (kit.READER_DEMO,))
        if traced_run:
            with collect_trace():
                return method.generate(kit.QUESTION), llm.prompts
        return method.generate(kit.QUESTION), llm.prompts

    assert run(True) == run(False)


def test_the_example_in_docs_traces_md_is_this_trace(traced) -> None:
    docs = Path(__file__).resolve().parents[3] / "docs" / "traces.md"
    block = docs.read_text(encoding="utf-8").split("<!-- example-trace -->")[1].split("<!-- /example-trace -->")[0]
    documented = json.loads(block.strip().removeprefix("```json").removesuffix("```"))
    _, trace, _ = traced(THREE_STEPS)
    assert trace.to_json() == documented


def test_the_summary_is_typed_and_stores_the_keys_it_always_stored(traced) -> None:
    result, trace, _ = traced(THREE_STEPS)
    summary = result.metadata
    assert isinstance(summary, IRCoTSummary)
    assert (summary.steps, summary.stop_reason, summary.chunk_ids) == (3, "answer", result.chunk_ids)
    stored = stored_trace("q", summary, trace)
    assert list(stored) == ["steps", "cot_sentences", "chunk_ids", "queries", "stop_reason", "reader_generation",
                            "retrieved_titles", "demonstrations", "typed_trace"]
    assert stored["cot_sentences"] == list(summary.cot_sentences) and stored["demonstrations"] == [2, 2, 2]
    assert IRCoTSummary.from_result_trace(json.loads(json.dumps(stored))) == summary


def test_the_steps_read_through_their_payloads(traced) -> None:
    result, trace, _ = traced(THREE_STEPS)
    payloads = [ircot_payload(step) for step in trace.steps]
    assert [p.query for p in payloads if isinstance(p, IRCoTRetrieve)] == list(result.metadata.queries)
    assert [p.sentence for p in payloads if isinstance(p, IRCoTReason)] == list(result.metadata.cot_sentences)
    assert [p.stop_reason for p in payloads if isinstance(p, IRCoTReason)] == [None, None, "answer"]
