"""hopkit/campaign/method_tables.py: MIGRES's and SearChain's tables, read from traces their own recorders wrote."""

from __future__ import annotations

from types import ModuleType, SimpleNamespace
from typing import Any, Callable

import pytest

from hopkit.methods.migres.filter import Knowledge
from hopkit.methods.migres.modules import Asked
from hopkit.methods.migres.responses import MainVerdict
from hopkit.methods.migres.steps import (MIGRESSummary, record_knowledge, record_leaf, record_main, record_queries,
                                         record_retrieval, record_verification)
from hopkit.methods.searchain.feedback import Verdict
from hopkit.methods.searchain.steps import SearChainSummary, record_chain, record_skipped, record_tracing
from hopkit.parsing.chain import Chain, ChainNode
from hopkit.records import Paragraph, ScoredParagraph
from hopkit.traces import collect_trace, stored_trace
from hopkit.usage import ComponentUsage, Usage

pytestmark = pytest.mark.unit

SECONDS = {"main": 1.0, "final_main": 0.5, "query": 0.5, "leaf": 2.0, "knowledge": 0.25, "filter": 3.0, "nli": 0.75}


@pytest.fixture(scope="module")
def tables(load_benchmark: Callable[[str], ModuleType]) -> ModuleType:
    return load_benchmark("method_tables")


def hits(*ids: int) -> list[ScoredParagraph]:
    return [ScoredParagraph(Paragraph(i, f"t{i}", f"text {i}"), float(len(ids) - n)) for n, i in enumerate(ids)]


def knowledge(query: str, *ids: int) -> list[Knowledge]:
    return [Knowledge(f"text {i}", query, f"t{i}", i, 1.0) for i in ids]


def migres_stored(**metadata: Any) -> dict[str, Any]:
    """Two iterations: a leaf call read twice (a retry), the query generator, knowledge prompting, a last Main;
    recorded by MIGRES's own recorders, as a run stores them."""
    unanswerable = MainVerdict("unanswerable", 2, "", "who founded it")
    with collect_trace() as trace:
        outcomes = [{"paragraph_id": i, "relevance": 1.0, "outcome": "kept_whole"} for i in (10, 11, 13)]
        first = record_retrieval("q", hits(10, 11, 13), outcomes, 3, 0.5, None)
        leaf = record_leaf("q", knowledge("q", 10, 11), [], ["bad", "{}"], first)
        record_verification(leaf, "fact", [10], [0.9], True, "nli")
        main = record_main(unanswerable, Asked(unanswerable, ("{}",)), "q", 1, 1, False, False, leaf)
        asked = record_queries("who founded it", ["q2"], [], [], ["q2"], main)
        again = record_retrieval("q2", hits(12), [{"paragraph_id": 12, "relevance": 0.1,
                                                  "outcome": "below_threshold"}], 3, 0.5, asked)
        known = record_knowledge("q2", "what the model knows", again)
        second = record_leaf("q", knowledge("q2", 11, 12), [], ["{}"], known)
        record_main(unanswerable, Asked(unanswerable, ()), "q", 1, 2, False, False, second, reused=True)
        answer = MainVerdict("Tarsk", 4, "", "")
        record_main(answer, Asked(answer, ("{}",)), "q", 1, 3, True, True, second)
    summary = MIGRESSummary(iterations=3, stop_reason="answered", confidence=4, knowledge_tokens=420)
    return stored_trace("q1", {**summary, **metadata}, trace)  # metadata: keys of runs saved before


def searchain_stored(verdicts_by_round: list[list[Verdict]], traceability: dict[str, float] | None) -> dict[str, Any]:
    """One ``reason`` step per round, a ``verify`` step per node, and the tracing ``read`` step if given."""
    with collect_trace() as trace:
        parent = None
        for round_, verdicts in enumerate(verdicts_by_round, start=1):
            nodes = tuple(ChainNode(i, f"q{i}", "a", False, True) for i in range(1, len(verdicts) + 1))
            chain = record_chain(round_, None, "generation", Chain(nodes, "final"), 1, parent)
            for position, (node, verdict) in enumerate(zip(nodes, verdicts), start=1):
                parent = record_skipped(round_, node, position, verdict, chain)
        if traceability is not None:
            record_tracing("Q", "A", "generation", "final", "traced", (), (), (), traceability, chain)
    summary = SearChainSummary(rounds=len(verdicts_by_round), stop_reason="finished", knowledge_sources={},
                               verdicts={}, words_in=300, words_out=60, final_content="final",
                               traceability=traceability or {})
    return stored_trace("q", summary, trace)


def usage(model_calls: int, retrieval_seconds: float, total_seconds: float) -> Usage:
    spent = Usage(total_seconds=total_seconds)
    for _ in range(model_calls):
        spent.add_llm(10, 1, 0.01)
    spent.add_retrieval(retrieval_seconds)
    return spent


def test_migres_counts_are_read_from_the_trace_as_the_paper_defines_them(tables: ModuleType) -> None:
    row = tables.migres_question(migres_stored(seconds=SECONDS), usage(20, 0.1, 10.0))
    # leaf 2 (one retry) + main 1 + query 1 + knowledge 1 + leaf 1 + final_main 1; the reused Main made no call
    assert row["generation_calls"] == 7
    assert row["scoring_calls"] == 13
    assert row["iterations"] == 3          # main, reused main, final_main: one Main step per iteration
    assert row["passages"] == 3            # 10, 11, 12 shown to the leaf; 13 retrieved but never shown
    assert row["knowledge_tokens"] == 420 and row["knowledge_prompts"] == 1
    assert row["seconds:filter"] == 3.0 and row["seconds:retrieval"] == 0.1
    assert row["seconds:other"] == pytest.approx(10.0 - 8.0 - 0.1)


def test_a_migres_run_without_recorded_seconds_shows_none(tables: ModuleType) -> None:
    row = tables.migres_question(migres_stored(), usage(7, 0.0, 5.0))
    assert not [key for key in row if key.startswith("seconds:")]
    table = tables.migres_table([tables.RunRows("migres", "hotpotqa", [row], [5.0])])
    assert "| migres | hotpotqa | 5.00 | - | - |" in table
    assert "| migres | hotpotqa | 1 | 7.0 | 0.0 | 3.00 | 3.0 | 420 | 1.00 |" in table
    assert "| migres | hotpotqa | - | - | - | - |" in table   # no prompt tokens recorded per module


def test_the_prefix_cache_share_is_split_between_the_generating_modules_and_the_judges(
        tables: ModuleType) -> None:
    stored = migres_stored(prompt_tokens={"main": 600, "leaf": 400}, cached_prompt_tokens={"main": 500, "leaf": 300})
    spent = Usage(5.0, {"model": ComponentUsage(7, 0.0, 7, 0.07, prompt_tokens=3000, cached_prompt_tokens=1300)})
    row = tables.migres_question(stored, spent)
    assert (row["prompt:generation"], row["cached:generation"]) == (1000, 800)
    assert (row["prompt:judges"], row["cached:judges"]) == (2000, 500)
    table = tables.migres_table([tables.RunRows("migres", "hotpotqa", [row], [5.0])])
    assert "| migres | hotpotqa | 1000 | 80% | 2000 | 25% |" in table


def test_a_run_with_labelled_usage_reads_each_module_and_judge_from_it(tables: ModuleType) -> None:
    spent = Usage(10.0, {"migres:leaf": ComponentUsage(3, 0.25, 3, 1.75, 900, 600, 30),
                         "migres:main": ComponentUsage(1, 0.0, 1, 1.0, 500, 400, 20),
                         "judge:relevance": ComponentUsage(4, 0.5, 4, 2.5, 1600, 0, 4),
                         "judge:entailment": ComponentUsage(1, 0.75), "retrieval": ComponentUsage(2, 0.1)})
    row = tables.migres_question(migres_stored(), spent)  # no seconds or tokens in the metadata any more
    assert (row["seconds:leaf"], row["seconds:main"], row["seconds:query"]) == (2.0, 1.0, 0.0)
    assert (row["seconds:filter"], row["seconds:nli"], row["seconds:retrieval"]) == (3.0, 0.75, 0.1)
    assert row["seconds:other"] == pytest.approx(10.0 - 6.75 - 0.1)
    assert (row["prompt:generation"], row["cached:generation"], row["prompt:judges"], row["cached:judges"]) == (
        1400, 1000, 1600, 0)
    assert row["scoring_calls"] == 8 - 7  # every model call of the question less the trace's generation calls


def test_searchain_nodes_rounds_and_traceability(tables: ModuleType) -> None:
    stored = searchain_stored([["corrected", "not_reached"], ["duplicate", "kept", "completed"]],
                              {"marks": 2, "valid_marks": 1, "skc": 1})
    row = tables.searchain_question(stored)
    assert (row["nodes:llm"], row["nodes:corrected"], row["nodes:completed"], row["nodes:unsolved"]) == (1, 1, 1, 0)
    assert row["rounds"] == 2 and row["traced"] == 1
    assert (row["marks"], row["valid_marks"], row["skc"]) == (2, 1, 1)
    assert (row["words_in"], row["words_out"]) == (300, 60)
    assert "citation_recall" not in row


def test_searchain_node_shares_are_pooled_over_questions(tables: ModuleType) -> None:
    first = tables.searchain_question(searchain_stored([["corrected", "kept", "completed"]], None))
    second = tables.searchain_question(searchain_stored([["kept", "kept", "kept", "left_unsolved"]], None))
    run = tables.RunRows("searchain", "musique", [first, second], [8.0, 12.0])
    shares = tables.node_shares(run)
    assert shares["llm"] == pytest.approx(100 * 4 / 7)
    assert shares["unsolved"] == pytest.approx(100 / 7)
    assert first["traced"] == 0 and first["skc"] == 0  # no tracing call: nothing marked
    assert "| searchain | musique | 2 | 3.50 | 57.1 | 14.3 | 14.3 | 14.3 | 1.00 | 300 | 60 | 10.00 | 0.0 |" \
        in tables.searchain_table([run])


def test_run_rows_keep_the_compared_answered_questions(tables: ModuleType) -> None:
    results = [SimpleNamespace(query_id="a", error=None, trace=migres_stored(), usage=usage(9, 0.0, 4.0)),
               SimpleNamespace(query_id="b", error="LLMError: boom", trace={}, usage=usage(1, 0.0, 1.0)),
               SimpleNamespace(query_id="c", error=None, trace=migres_stored(), usage=usage(9, 0.0, 6.0))]
    run = tables.run_rows("migres", "migres", "hotpotqa", results, {"a", "b"})
    assert len(run.rows) == 1 and list(run.seconds) == [4.0]
    assert run.rows[0]["scoring_calls"] == 2


def test_sections_only_for_migres_and_searchain_runs(tables: ModuleType) -> None:
    runs = [SimpleNamespace(run_id="r1", name="nor", method="nor", dataset="hotpotqa"),
            SimpleNamespace(run_id="r2", name="oner", method="oner", dataset="hotpotqa")]
    store = SimpleNamespace(results=lambda run_id: [])
    assert tables.method_sections(store, runs, {"r1": "nor", "r2": "oner"}, {"a"}) == []
    runs.append(SimpleNamespace(run_id="r3", name="searchain-musique", method="searchain", dataset="musique"))
    sections = tables.method_sections(store, runs, {"r3": "searchain"}, {"a"})
    assert len(sections) == 2 and "| searchain | musique | 0 |" in sections[1]
