"""benchmarks/ircot_diagnostics.py reads IRCoT's retrievals from its trace; its counterfactual
replay, given IRCoT's own queries, gives back the traced paragraphs (no model is loaded)."""

from __future__ import annotations

import importlib
from types import ModuleType

import pytest

from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.ircot.method import IRCoT, IRCoTConfig
from hopkit.methods.ircot.query import next_query
from hopkit.records import Query
from hopkit.retrieval.memory import InMemoryRetriever
from hopkit.traces import Trace, collect_trace
from tests import fictional_corpus

pytestmark = pytest.mark.unit

CORPUS = list(fictional_corpus.paragraphs(4))
QUERY = Query(id="q1", text="Which river flows through the birthplace of the founder of Velmora Ironworks?")
SCRIPT_LINES = ["Velmora Ironworks was founded by Ada Quill.", "Ada Quill was born in Tarsk.",
                "So, Tarsk is on a river.", "Tarsk is on the Orl River.", "So the answer is: Orl River.", "Orl River"]


@pytest.fixture(scope="module")
def diagnostics() -> ModuleType:
    """The script, imported from this repository's ``benchmarks`` package (pyproject.toml's pythonpath)."""
    return importlib.import_module("benchmarks.ircot_diagnostics")


def traced_run(config: IRCoTConfig) -> tuple[Trace, tuple[int, ...]]:
    method = IRCoT(ScriptedLLM(SCRIPT_LINES), InMemoryRetriever(CORPUS), config)
    with collect_trace() as trace:
        result = method.generate(QUERY)
    return trace, result.chunk_ids


@pytest.mark.parametrize("config", [IRCoTConfig(k_per_step=2, reader="direct"),
                                    IRCoTConfig(k_per_step=3, reader="direct", paragraph_budget=4),
                                    IRCoTConfig(k_per_step=2, reader="direct", exclude_collected=True)])
def test_the_trace_gives_the_collection_and_the_replay_with_ircots_queries_agrees(diagnostics, config) -> None:
    trace, chunk_ids = traced_run(config)
    retriever = InMemoryRetriever(CORPUS)
    assert diagnostics.traced_collection(trace) == list(chunk_ids)
    assert diagnostics.replay(retriever, config, QUERY, trace, next_query) == list(chunk_ids)


def test_the_tally_counts_retrievals_and_drops_by_reason(diagnostics) -> None:
    trace = Trace()
    trace.add_step("retrieve", input="q", paragraph_ids=[1, 2, 3, 4], extra={"k": 4}, output={
        "kept": [1, 2], "skipped": None, "dropped": [{"paragraph_id": 3, "reason": "too_long"},
                                                     {"paragraph_id": 4, "reason": "budget_full"}]})
    trace.add_step("reason", parent=1, output="Ada Quill was born in Tarsk.")
    trace.add_step("retrieve", parent=2, input="Ada Quill born in Tarsk.", paragraph_ids=[1, 5], extra={"k": 4},
                   output={"kept": [], "skipped": None, "dropped": [{"paragraph_id": 1, "reason": "duplicate"},
                                                                    {"paragraph_id": 5, "reason": "near_duplicate"}]})
    trace.add_step("reason", parent=3, output="So, it is.")
    trace.add_step("retrieve", parent=4, input="", output={"kept": [], "dropped": [], "skipped": "empty_query"},
                   extra={"k": 4})
    trace.add_step("retrieve", parent=5, input="x", output={"kept": [], "dropped": [], "skipped": "budget_full"},
                   extra={"k": 4})
    assert diagnostics.collection_tally(trace) == {
        "retrievals": 2, "skipped:empty_query": 1, "skipped:budget_full": 1, "returned": 6, "kept": 2,
        "too_long": 1, "budget_full": 1, "duplicate": 1, "near_duplicate": 1}
    assert diagnostics.traced_collection(trace) == [1, 2]


def test_sentences_before_a_retrieval_are_those_the_query_was_made_from(diagnostics) -> None:
    trace, _ = traced_run(IRCoTConfig(k_per_step=2, reader="direct"))
    for step in diagnostics.retrievals(trace):
        if step.output["skipped"] != "budget_full":
            assert next_query(QUERY.text, diagnostics.sentences_before(trace, step)) == step.input
