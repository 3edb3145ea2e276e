"""The campaign's router training (``hopkit campaign train-router``): the questions it trains on are past the
benchmark's, its table counts the benchmark questions' silver and routed labels and sets the classifier
beside the most common label with a paired p, and the classifier file is rewritten only when the classifier
changes (a routed run's id holds the file's digest)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from hopkit.campaign import router_training
from hopkit.methods.adaptive_rag.trained import train
from hopkit.methods.adaptive_rag.training import question_labels, train_router
from hopkit.records import Corpus, Paragraph, Query
from hopkit.store.connection import DBConnection
from hopkit.store.records import QueryResult, RunSpec
from hopkit.store.store import Store

pytestmark = pytest.mark.unit

SIMPLE = [f"What colour is the {thing} in picture {i}?" for i, thing in enumerate(["sky", "snow", "coal"] * 4)]
MULTI = [f"Where was the founder of the firm behind product {i} born?" for i in range(12)]
QUERIES = tuple(Query(f"q{i}", text, ("right",)) for i, text in enumerate(
    [q for pair in zip(SIMPLE, MULTI) for q in pair]))


def test_the_router_trains_past_the_benchmark_questions_and_says_how_it_routes_them(tmp_path: Path) -> None:
    store = Store(DBConnection(f"sqlite:///{tmp_path / 'runs.db'}").get_session_factory())
    store.add_corpus(Corpus("hotpotqa", (Paragraph(0, "Tarsk", "Tarsk is a port."),), QUERIES))
    runs = {}
    for label, method in (("A", "nor"), ("B", "oner")):
        run = store.ensure_run(RunSpec(method, method, "hotpotqa", {"method": method}))
        store.record_results(run.run_id, [QueryResult(q.id, "right" if q.text in SIMPLE and method == "nor"
                                                      else "wrong") for q in QUERIES])
        runs[label] = store.run(run.run_id)
    labelling = {"hotpotqa": {**runs, "C": None}}
    outcome = train_router(store, ["hotpotqa"], held_out_share=0, skip_first=6, runs=labelling)
    assert {example.query_id for example, _ in outcome.examples} == {q.id for q in QUERIES[6:]}
    benchmark = {"hotpotqa": question_labels(store, "hotpotqa", labelling["hotpotqa"], list(QUERIES[:6]))}
    path = router_training.ROOT / "benchmarks" / "results" / "router" / "test.npz"
    section = router_training.render(outcome, benchmark, path, "hopkit campaign train-router")
    assert "18 questions: A (no retrieval) 9, B (single-step) 0, C (multi-step) 9" in section
    assert "| hotpotqa | 6 | 3 / 0 / 3 | 3 / 0 / 3 | 100.0 | 50.0 | 0.25 |" in section
    assert "File: `benchmarks/results/router/test.npz`" in section

    saved = tmp_path / "router.npz"
    assert router_training.kept_or_new(outcome.classifier, saved)
    assert not router_training.kept_or_new(outcome.classifier, saved)
    assert router_training.kept_or_new(train(SIMPLE + MULTI, ["C"] * 12 + ["A"] * 12, ("A", "B", "C")), saved)


@pytest.mark.integration
@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("HOPKIT_DATA_DIR"), reason="HOPKIT_DATA_DIR is not set: the runs are on the samples")
def test_the_saved_classifier_and_its_section_are_what_the_saved_runs_give(restored: Any) -> None:
    outcome, benchmark = router_training.trained(restored, router_training.DATASETS)
    path = router_training.router_file()
    assert router_training.holds(path, outcome.classifier), f"{path}: hopkit campaign train-router"
    notebook = router_training.NOTEBOOK_MD.read_text(encoding="utf-8")
    section = re.search(r"<!-- bench:adaptive-rag-router -->\n(.*?)\n<!-- /bench:adaptive-rag-router -->", notebook,
                        re.S)
    assert section is not None, "no adaptive-rag-router section: hopkit campaign train-router"
    command = section.group(1).split("Command: `", 1)[1].split("`", 1)[0]
    assert section.group(1) == router_training.render(outcome, benchmark, path, command).strip()
