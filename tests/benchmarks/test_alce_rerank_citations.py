"""benchmarks/alce_rerank_citations.py: the first sample is read in place of RERANK's "" only where no
sampled answer's citation recall is above 0."""

from __future__ import annotations

from types import ModuleType, SimpleNamespace
from typing import Callable

import pytest

from hopkit.methods.alce.steps import ALCERead, ALCESample
from hopkit.records import Query
from hopkit.traces import collect_trace, stored_trace
from hopkit.traces.payload import record

pytestmark = pytest.mark.unit

QUERIES = {"q1": Query("q1", "Where was Ada born?", ("Tarsk",)), "q2": Query("q2", "Where is Tarsk?", ("Norland",))}


@pytest.fixture(scope="module")
def citations(load_benchmark: Callable[[str], ModuleType]) -> ModuleType:
    return load_benchmark("alce_rerank_citations")


def stored(query_id: str, samples: list[tuple[str, float]], prediction: str) -> SimpleNamespace:
    """A stored RERANK result: its samples with their recalls, and the answer ALCE chose."""
    with collect_trace() as trace:
        parent = None
        for index, (generation, recall) in enumerate(samples):
            parent = record(ALCESample(sample=index, generation=generation, citation_recall=recall), parent=parent)
        record(ALCERead(question="q", answer=prediction, generation=prediction), parent=parent)
    return SimpleNamespace(query_id=query_id, prediction=prediction, trace=stored_trace(query_id, {}, trace))


def test_only_a_question_left_empty_reads_its_first_sample(citations: ModuleType) -> None:
    unchosen = stored("q1", [("Ada was born in Tarsk.\nMore.", 0.0), ("Ada was born in Oslo [1].", 0.0)], "")
    chosen = stored("q2", [("Tarsk is in Norland.", 0.0), ("Tarsk is in Sweden [2].", 0.5)], "Tarsk is in Sweden")
    assert citations.choice_of(unchosen).first_kept == "Ada was born in Tarsk"
    assert citations.choice_of(chosen).first_kept == "Tarsk is in Sweden"

    choices = [citations.choice_of(unchosen), citations.choice_of(chosen)]
    first_kept, as_run = citations.scored(QUERIES, choices, "toy")
    assert [s.cover_em for s in first_kept] == [1.0, 0.0]
    assert [s.cover_em for s in as_run] == [0.0, 0.0]
    row = citations.citation_row("toy", choices, first_kept, as_run)
    assert row.startswith("| toy | 2 | 2 of 4 | 1 of 4 | 1 of 2 |")
