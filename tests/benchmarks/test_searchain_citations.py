"""benchmarks/searchain_citations.py: a stored final content's citations scored again from its stored marks."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Callable

import pytest

from hopkit.judges.scripted import ScriptedEntailment
from hopkit.judges.sentences import SyntokSplitter
from hopkit.methods.searchain.steps import record_tracing
from hopkit.methods.searchain.tracing import Mark
from hopkit.records import Corpus, Paragraph, Query
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store
from hopkit.traces import collect_trace, record_step, stored_trace

pytestmark = pytest.mark.unit

BORN = Paragraph(7, "Ada", "Ada was born in Tarsk.")
PORT = Paragraph(8, "Tarsk", "Tarsk is a port.")


@pytest.fixture(scope="module")
def citations(load_benchmark: Callable[[str], ModuleType]) -> ModuleType:
    return load_benchmark("searchain_citations")


def stored(final_content: str, marks: list[Mark]) -> dict[str, object]:
    with collect_trace() as trace:
        chain = record_step("reason", input="q", output={"nodes": []})
        record_tracing("q", "Tarsk", final_content, final_content, final_content, (), marks, (), {}, chain)
    return stored_trace("q1", {}, trace)


def test_marks_resolve_to_their_stored_passages_and_are_scored_by_alce(citations: ModuleType,
                                                                       tmp_path: Path) -> None:
    store = Store(DBConnection(f"sqlite:///{tmp_path / 'db.sqlite'}").get_session_factory())
    store.add_corpus(Corpus("toy", (BORN, PORT), (Query("q1", "Where was Ada born?", ("Tarsk",)),)))
    marks = [Mark(1, 7), Mark(2, 8), Mark(3, None)]
    step = citations.tracing_step(stored("Ada was born in Tarsk [1] [2]. Tarsk is a port [3]. So the answer is "
                                         "Tarsk.", marks))
    assert step is not None and step.kind == "read" and [m.valid for m in step.marks] == [True, True, False]

    def entails(premise: str, hypothesis: str) -> float:
        return 1.0 if hypothesis.rstrip(".") in premise else 0.0

    scores = citations.score_question(store, "toy", step, ScriptedEntailment(entails), SyntokSplitter())
    # one sentence of three supported (the port's mark resolved to nothing); [2] on it is irrelevant
    assert scores == {"sentences": 3, "marked": 1, "recall": pytest.approx(1 / 3), "precision": pytest.approx(1 / 2)}


def test_an_answer_without_a_tracing_call_is_not_scored(citations: ModuleType) -> None:
    with collect_trace() as trace:
        record_step("extract", input="q", output="Tarsk", extra={"source": "final_content"})
    assert citations.tracing_step(stored_trace("q1", {}, trace)) is None
