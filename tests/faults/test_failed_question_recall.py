"""What a method retrieved before it failed is kept and scored, however it failed (issue 48, item 3).

Three OneR runs with identical retrieval scored paragraph recall 89.6, 89.6 and 0.0: a reader
that failed with a server error kept no retrieved ids, an empty answer kept them. The runs
here use a real BM25 index, the real HTTP backend against a loopback server, the runner and
a SQLite store.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hopkit.llm.openai_compat import OpenAICompatibleLLM
from hopkit.llm.testing_server import Fault, serve_fake_openai
from hopkit.methods.oner.method import OneR, OneRConfig
from hopkit.records import Corpus, Paragraph, Query
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.pipelines.runner import run_method
from hopkit.scoring_runs import score_run
from hopkit.store.connection import DBConnection
from hopkit.store.records import RunSpec
from hopkit.store.store import Store

pytestmark = pytest.mark.unit

TOWNS = ("Tarsk", "Ovelund", "Brammer", "Quillon", "Dessary", "Marrow")


def world(tmp_path: Path) -> tuple[Store, tuple[Query, ...], BM25Retriever]:
    paragraphs = tuple(Paragraph(i, f"Person {i}", f"Person {i} was born in {town}, a port on the coast.")
                       for i, town in enumerate(TOWNS))
    queries = tuple(Query(f"q{i}", f"Where was Person {i} born?", (town,), gold_paragraph_ids=(i,))
                    for i, town in enumerate(TOWNS))
    store = Store(DBConnection(f"sqlite:///{tmp_path / 'recall.db'}").get_session_factory())
    store.add_corpus(Corpus("toy", paragraphs, queries))
    return store, store.queries("toy"), BM25Retriever.build(list(paragraphs))


@pytest.mark.parametrize("fault", [Fault("status", status=500), Fault("null"), Fault("empty")],
                         ids=["server-error", "null-reply", "empty-answer"])
def test_a_failed_question_keeps_what_it_retrieved_whatever_the_failure(tmp_path: Path, fault: Fault) -> None:
    store, queries, retriever = world(tmp_path)
    config = {"retrieval": "bm25", "k": 3}
    with serve_fake_openai(lambda prompt: "Tarsk") as healthy:
        llm = OpenAICompatibleLLM(healthy.base_url, "m", max_retries=0)
        answered = run_method(OneR(llm, retriever, OneRConfig(k=3)), queries, store,
                              RunSpec("oner", "oner", "toy", config), progress=False)
    def every_other(number: int, prompt: str) -> Fault | None:  # three server failures in a row stop a run
        asked = re.findall(r"Where was Person (\d+) born\?", prompt)
        return fault if asked and int(asked[-1]) % 2 == 1 else None

    with serve_fake_openai(lambda prompt: "Tarsk", faults=every_other) as broken:
        llm = OpenAICompatibleLLM(broken.base_url, "m", max_retries=0)
        failing = run_method(OneR(llm, retriever, OneRConfig(k=3)), queries, store,
                             RunSpec("oner-broken", "oner", "toy", {**config, "broken": fault.kind}), progress=False)
    failed = {r.query_id for r in store.results(failing.run_id) if r.error}
    assert failed == {"q1", "q3", "q5"}
    retrieved = {r.query_id: r.chunk_ids for r in store.results(answered.run_id)}
    kept = {r.query_id: r.chunk_ids for r in store.results(failing.run_id)}
    assert kept == retrieved and all(len(ids) == 3 for ids in kept.values())
    recall = {s.query_id: s.paragraph_recall for s in score_run(store, store.run(answered.run_id))[1]}
    assert {s.query_id: s.paragraph_recall for s in score_run(store, store.run(failing.run_id))[1]} == recall
    assert all(recall[query_id] for query_id in failed)
