"""Each method's steps as its renderer draws them, from the example traces of docs/traces.md
(which unit tests of the methods check against real recorded traces); unknown ones as JSON."""

from __future__ import annotations

import html as html_module
import json
import re
from pathlib import Path
from typing import Any, Mapping

import pytest

from hopkit.evaluation.aggregate import QuestionCost, summarize_run
from hopkit.evaluation.scoring import score_question
from hopkit.records import Paragraph, Query
from hopkit.report.html.model import HtmlReportInput, HtmlRun
from hopkit.report.html.pages import html_environment
from hopkit.report.html.questions import render_question
from hopkit.report.html.renderers import renderers
from hopkit.store.records import QueryResult
from hopkit.usage import Usage

pytestmark = pytest.mark.unit

TRACES_MD = Path(__file__).resolve().parents[3] / "docs" / "traces.md"


def example(marker: str) -> dict[str, Any]:
    """The example trace between ``<!-- marker -->`` and ``<!-- /marker -->`` in docs/traces.md."""
    text = TRACES_MD.read_text(encoding="utf-8")
    found = re.search(rf"<!-- {marker} -->\s*```json\n(.*?)```\s*<!-- /{marker} -->", text, re.S)
    assert found is not None, marker
    loaded: dict[str, Any] = json.loads(found.group(1))
    return loaded


def page(method: str, trace: Mapping[str, Any], *, answer: str = "Tarsk", gold: tuple[int, ...] = (11,),
         error: str | None = None) -> str:
    """The question page of one result of ``method`` with ``trace`` (paragraphs 1-30 known)."""
    query = Query("q1", "Where was the founder of Velmora Ironworks born?", ("Tarsk",), gold)
    result = QueryResult("q1", answer, trace=trace, error=error, usage=Usage())
    scores = score_question(query, answer, None)
    summary = summarize_run("r1", method.lower(), method.lower(), "ds", [scores], [QuestionCost(Usage())])
    paragraphs = {i: Paragraph(i, f"Title {i}", f"Text of paragraph {i}.") for i in range(1, 31)}
    report = HtmlReportInput([HtmlRun(summary, {"q1": scores}, {"q1": result}, method.lower())],
                             {"ds": [query]}, {"ds": paragraphs})
    return render_question(html_environment(), report, "ds", query)


def text_of(html: str) -> str:
    return html_module.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


def test_ircot_steps_show_kept_and_dropped_paragraphs_the_sentence_and_the_reader() -> None:
    html = page("IRCoT", {"typed_trace": example("example-trace")}, answer="Germany", gold=(2, 5))
    text = text_of(html)
    assert "dropped: duplicate" in text and text.count("kept") >= 4
    assert "The Lost Gravity was manufactured by Mack Rides." in text
    assert re.search(r'class="rest"[^>]*> It opened in 2016\.</span>', html)
    assert "stop: answer" in text and "reader direct, context own" in text
    assert re.search(r'<a class="para gold" href="#para-5"', html)  # gold paragraphs marked
    assert 'href="#para-1"' in html and 'id="para-1"' in html  # the link has its target on the page


def test_a_skipped_ircot_retrieval_is_one_line_saying_why() -> None:
    step = {"id": 1, "parent": None, "kind": "retrieve", "input": "", "paragraph_ids": [], "scores": [],
            "output": {"kept": [], "dropped": [], "skipped": "budget_full"}, "llm_calls": 0, "extra": {"k": 4}}
    text = text_of(page("IRCoT", {"typed_trace": {"schema_version": 1, "steps": [step], "citations": []}}))
    assert "Not retrieved: the paragraph budget was already full." in text


def test_iirc_title_scope_shows_the_titles_written_and_those_retrieval_keeps_to() -> None:
    step = {"id": 1, "parent": None, "kind": "scope", "input": "q", "output": ["Title 3", "Title 4"],
            "paragraph_ids": [], "scores": [], "llm_calls": 1,
            "extra": {"generated": ["title three", "Title 4"], "generation": "title three; Title 4"}}
    text = text_of(page("IRCoT", {"typed_trace": {"schema_version": 1, "steps": [step], "citations": []}}))
    assert "Titles the model wrote title three; Title 4" in text
    assert "Retrieval restricted to Title 3; Title 4" in text


def test_migres_shows_filter_outcomes_facts_entailment_and_citations() -> None:
    html = page("MIGRES", {"typed_trace": example("migres-example-trace"), "iterations": 2})
    text = text_of(html)
    assert "used twice" in text and "kept sentences (2 of 2), relevance 5.00" in text
    assert "kept whole, relevance 5.00" in text and "( of )" not in text
    # the NLI checks hang off their leaf step; the loop, the final answer included, reads straight down
    assert html.count('style="margin-left: 1.6em"') == 2 and html.count("margin-left") == 2
    assert "Trace: 9 steps (2 retrieve, 2 extract, 2 verify, 2 reason, 1 read), 0 model calls, 2 citations" in text
    assert "below threshold" in text
    assert "Velmora Ironworks was founded by Ada Quill" in text and "learnt" in text
    assert "Entailed yes" in text and "P = 0.900" in text
    assert "Missing Where Ada Quill was born" in text and "Where was Ada Quill born?" in text
    assert "Cites “Ada Quill was born in Tarsk” → Title 11" in text
    assert '"iterations": 2' in text  # the method's own keys, as JSON


def test_searchain_shows_rounds_nodes_verdicts_and_marks() -> None:
    html = page("SearChain", {"typed_trace": example("searchain-example-trace")}, answer="Toronto", gold=(2,))
    text = text_of(html)
    assert "Round 2" in text and "What is the place of birth of Kevin Drew?" in text
    assert "corrected" in text and "reader read Kevin Drew" in text and "duplicate" in text
    assert "repeats the query of step #3" in text
    assert re.search(r"\[2\] <a class=\"para gold\" href=\"#para-2\"", html)
    assert 'style="margin-left: 1.6em"' in html  # the node skipped as a duplicate hangs off its round


def test_a_step_kind_no_renderer_knows_is_shown_as_json() -> None:
    trace = {"schema_version": 1, "citations": [], "steps": [
        {"id": 1, "parent": None, "kind": "rerank", "input": "a query", "output": {"order": [3, 1]},
         "paragraph_ids": [3, 1], "scores": [0.9, 0.2], "llm_calls": 0, "extra": {"model": "cross-encoder"}}]}
    html = page("IRCoT", {"typed_trace": trace})
    assert re.search(r'<pre class="json">\{\s+&#34;order&#34;: \[\s+3,\s+1\s+\]\s+\}</pre>', html)
    assert "cross-encoder" in text_of(html)


def test_a_method_without_a_renderer_gets_the_generic_drawing_and_one_without_steps_its_json() -> None:
    assert "newmethod" not in renderers()
    html = page("NewMethod", {"typed_trace": example("example-trace")}, answer="Germany")
    assert html.count('<div class="generic">') == 7
    bare = page("NewMethod", {"hops": ["a", "b"], "note": "no typed steps"})
    assert "No typed steps recorded" in bare
    assert re.search(r'<details class="raw" open><summary>The method.s own trace keys', bare)
    assert "no typed steps" in bare


def test_the_trace_header_counts_in_the_singular_too() -> None:
    step = {"id": 1, "parent": None, "kind": "read", "input": "q", "output": "Tarsk", "paragraph_ids": [],
            "scores": [], "llm_calls": 1, "extra": {"generation": "Tarsk"}}
    trace = {"schema_version": 1, "steps": [step], "citations": [{"step": 1, "claim": None, "paragraph_ids": [11],
                                                                   "score": None}]}
    assert "Trace: 1 step (1 read), 1 model call, 1 citation" in text_of(page("NoR", {"typed_trace": trace}))


def test_a_failed_question_shows_its_error() -> None:
    text = text_of(page("IRCoT", {}, answer="", error="LLMError: the server went away"))
    assert "Failed: LLMError: the server went away" in text


def test_text_from_the_model_is_escaped() -> None:
    trace = example("example-trace")
    trace["steps"][1]["extra"]["generation"] = "<script>alert(1)</script>"
    html = page("IRCoT", {"typed_trace": trace})
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_a_step_that_does_not_read_as_its_payload_is_drawn_as_json_and_the_page_says_why() -> None:
    trace = example("example-trace")
    trace["steps"][2]["output"]["kept"] = ["five"]
    html = page("IRCoT", {"typed_trace": trace}, answer="Germany")
    assert html.count('<div class="generic">') == 1
    assert "step 3 (retrieve): output.kept[0]: expected an integer, got 'five'" in text_of(html)
    assert "dropped: duplicate" in text_of(html)  # the other retrievals still read


def test_a_migres_module_that_could_not_be_read_shows_its_error() -> None:
    failed = {"id": 1, "parent": None, "kind": "extract", "input": None, "output": None, "paragraph_ids": [],
              "scores": [], "llm_calls": 2, "extra": {"module": "leaf", "failed": True, "error": "no JSON object",
                                                     "generations": ["oops", "oops again"]}}
    html = page("MIGRES", {"typed_trace": {"schema_version": 1, "steps": [failed], "citations": []}})
    assert "Could not read the module's response: no JSON object" in text_of(html)
    assert '<div class="generic">' not in html and "oops again" in html
