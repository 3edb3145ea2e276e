"""Adaptive-RAG end to end below the model: silver labels from stored NoR, OneR and IRCoT runs in a real
SQLite store, the classifier trained by `hopkit train-router` and saved, and the router sending each
question to the strategy its label names, its steps kept under that strategy's name."""

from __future__ import annotations

from pathlib import Path

import pytest

from hopkit.cli import main
from hopkit.errors import ConfigError
from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.adaptive_rag import METHOD, AdaptiveRAGConfig
from hopkit.methods.adaptive_rag.steps import AdaptiveRoute
from hopkit.methods.registry import MethodParts, entries
from hopkit.records import Corpus, Paragraph, Query
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.store.connection import DBConnection
from hopkit.store.records import QueryResult, RunSpec
from hopkit.store.store import Store
from hopkit.traces import collect_trace

pytestmark = pytest.mark.unit

PARAGRAPHS = (Paragraph(0, "Tarsk", "Tarsk is a port on the Orl River."),
              Paragraph(1, "Ada Quill", "Ada Quill was an engineer from Tarsk."))
SIMPLE = [f"What colour is the {thing}?" for thing in ("sky", "grass", "snow", "coal", "blood", "sea")]
SINGLE = [f"Who wrote the novel {name}?" for name in ("Emma", "Ulysses", "Dracula", "Rebecca", "Beloved", "Ivanhoe")]
MULTI = [f"Where was the founder of the company that made the {thing} born?"
         for thing in ("Walkman", "Beetle", "Model T", "Game Boy", "Kindle", "Trabant")]
QUERIES = tuple(Query(f"q{i}", text, ("right",)) for i, text in enumerate(SIMPLE + SINGLE + MULTI))


def stored_strategy_runs(url: str) -> Store:
    """NoR right on the colour questions, OneR also on the novels, IRCoT also on the founders."""
    store = Store(DBConnection(url).get_session_factory())
    store.add_corpus(Corpus("hotpotqa", PARAGRAPHS, QUERIES))
    right_by = {"nor": SIMPLE, "oner": SIMPLE + SINGLE, "ircot": SIMPLE + SINGLE + MULTI}
    for method, right in right_by.items():
        run = store.ensure_run(RunSpec(method, method, "hotpotqa", {"method": method}))
        store.record_results(run.run_id, [QueryResult(q.id, "right" if q.text in right else "wrong") for q in QUERIES])
    return store


def test_the_router_is_trained_from_stored_runs_and_sends_each_question_to_its_strategy(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    store = stored_strategy_runs(url)
    path = tmp_path / "router.npz"
    assert main(["--db", url, "train-router", "--datasets", "hotpotqa", "--out", str(path), "--held-out", "0"]) == 0
    said = capsys.readouterr().out
    assert "18 questions: A (no retrieval) 6, B (single-step) 6, C (multi-step) 6; 18 labelled by the simplest" in said
    assert path.is_file()

    llm = ScriptedLLM(lambda prompt: "So the answer is: Tarsk.")
    options = METHOD.as_run(AdaptiveRAGConfig(classifier=str(path), strategies="defaults"))
    router = METHOD.build(MethodParts(llm, BM25Retriever.build(PARAGRAPHS), options, "hotpotqa", lambda: PARAGRAPHS))
    routed = {}
    for query in (QUERIES[0], QUERIES[6], QUERIES[12]):
        with collect_trace() as trace:
            result = router.generate(query)
        route = trace.steps[0].payload(AdaptiveRoute)
        routed[query.text] = (route.label, result.metadata["strategy"])
        arm_steps = trace.steps[1:]
        assert all(step.extra["method"] == route.strategy for step in arm_steps)
        assert all(entries()["adaptive-rag"].payload(step) is not None for step in trace.steps)
        assert result.text == "Tarsk"
    assert list(routed.values()) == [("A", "nor"), ("B", "oner"), ("C", "ircot")]
    assert store.runs("hotpotqa")  # the store was only read


def test_questions_no_strategy_answers_take_the_datasets_kind_and_accuracy_is_measured_held_out(
        tmp_path: Path) -> None:
    from hopkit.methods.adaptive_rag.training import train_router

    store = stored_strategy_runs(f"sqlite:///{tmp_path / 'runs.db'}")
    outcome = train_router(store, ["hotpotqa"], held_out_share=0.3)
    assert outcome.held_out_accuracy is not None and 0 <= outcome.held_out_accuracy <= 1
    assert any(out for _, out in outcome.examples) and not all(out for _, out in outcome.examples)


def test_a_missing_run_or_classifier_file_is_a_clear_error(tmp_path: Path) -> None:
    from hopkit.methods.adaptive_rag.training import train_router

    store = Store(DBConnection(f"sqlite:///{tmp_path / 'empty.db'}").get_session_factory())
    store.add_corpus(Corpus("hotpotqa", PARAGRAPHS, QUERIES))
    with pytest.raises(ConfigError, match="no stored nor run on 'hotpotqa': run `hopkit run nor"):
        train_router(store, ["hotpotqa"])
    parts = MethodParts(ScriptedLLM(["x"]), BM25Retriever.build(PARAGRAPHS),
                        METHOD.as_run(AdaptiveRAGConfig(classifier=str(tmp_path / "gone.npz"))), "hotpotqa")
    with pytest.raises(ConfigError, match="gone.npz: no classifier file there"):
        METHOD.build(parts)


def test_the_prompted_classifier_reads_the_first_label_letter_and_falls_back_on_none() -> None:
    from hopkit.methods.adaptive_rag.classifiers import PromptedClassifier

    assert PromptedClassifier(ScriptedLLM([" B"])).classify("Who wrote Emma?").label == "B"
    unreadable = PromptedClassifier(ScriptedLLM(["Hmm, hard to say"]), fallback="C").classify("Who?")
    assert (unreadable.label, unreadable.readable) == ("C", False)


def test_the_report_draws_the_route_and_then_the_strategys_steps_with_its_own_template() -> None:
    from hopkit.traces.stored import stored_trace
    from tests.report.html.test_html_traces import page, text_of

    llm = ScriptedLLM(lambda prompt: "C" if prompt.rstrip().endswith("Answer:") and "Reply with the letter" in prompt
                      else "So the answer is: Tarsk.")
    options = METHOD.as_run(AdaptiveRAGConfig(strategies="defaults"))
    router = METHOD.build(MethodParts(llm, BM25Retriever.build(PARAGRAPHS), options, "hotpotqa", lambda: PARAGRAPHS))
    with collect_trace() as trace:
        result = router.generate(QUERIES[12])
    text = text_of(page("adaptive-rag", stored_trace("q1", result.metadata, trace)))
    assert "Route C: ircot, by the prompted model" in text
    ircot_only = text_of(page("IRCoT", stored_trace("q1", {}, trace)))  # the same steps as IRCoT draws them
    assert "stop:" in ircot_only and "stop:" in text
