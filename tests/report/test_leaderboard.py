"""The leaderboard: each dataset's runs ranked, with intervals, retrieval, cost and the Pareto front."""

from __future__ import annotations

import pytest

from hopkit.evaluation.aggregate import Estimate, RunSummary
from hopkit.report.leaderboard import Setup, leaderboard, run_setup

pytestmark = pytest.mark.unit


def summary(run_id: str, name: str, em: float, seconds: float, dataset: str = "hotpotqa",
            judged: float | None = None) -> RunSummary:
    metrics = {"em": Estimate(em, em - 0.1, em + 0.1, 30), "f1": Estimate(em, em, em, 30),
               "cover_em": Estimate(em, em, em, 30)}
    if judged is not None:
        metrics["llm_accuracy"] = Estimate(judged, judged - 0.1, judged + 0.1, 30)
    return RunSummary(run_id, name, name.split("-")[0], dataset, 30, 0, metrics,
                      {"seconds_per_q": seconds, "llm_calls_per_q": 2.0, "prompt_tokens_per_q": 1234.0})


SETUPS = {f"id{i}": Setup("qwen, 4,096 tokens", "BM25 k1 1.2 b 0.75") for i in range(6)}


def rows(page: str) -> list[list[str]]:
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in page.splitlines()
            if line.startswith("| ") and not line.startswith("| rank")]


def test_runs_are_ranked_by_accuracy_with_the_pareto_front_of_accuracy_against_seconds() -> None:
    page = leaderboard([summary("id0", "nor", 0.2, 1.0), summary("id1", "ircot", 0.5, 40.0),
                        summary("id2", "migres", 0.4, 90.0), summary("id3", "oner", 0.3, 10.0),
                        summary("id4", "flare", 0.1, 60.0, dataset="musique")], SETUPS, links={"ircot": "ircot.md"})
    assert page.index("## hotpotqa") < page.index("## musique")
    table = rows(page.split("## musique")[0])
    assert [(r[0], r[1], r[2], r[5], r[-1]) for r in table] == [
        ("1", "ircot", "[ircot](ircot.md)", "50.0 [40.0, 60.0]", "yes"), ("2", "migres", "migres", "40.0 [30.0, 50.0]", ""),
        ("3", "oner", "oner", "30.0 [20.0, 40.0]", "yes"), ("4", "nor", "nor", "20.0 [10.0, 30.0]", "yes")]
    assert "Ranked by EM" in page and "Model: qwen, 4,096 tokens. Questions per run: 30." in page
    assert table[0][3] == "BM25 k1 1.2 b 0.75" and table[0][8:11] == ["40.00", "2.00", "1,234"]


def test_the_judges_accuracy_ranks_where_every_run_has_it_and_a_shared_name_gets_its_id() -> None:
    page = leaderboard([summary("id0", "oner", 0.2, 1.0, judged=0.6), summary("id1", "oner", 0.5, 2.0, judged=0.3)],
                       SETUPS)
    assert "Ranked by LLM Acc" in page
    assert [(r[1], r[5]) for r in rows(page)] == [("oner (id0)", "60.0 [50.0, 70.0]"), ("oner (id1)", "30.0 [20.0, 40.0]")]


def test_a_runs_setup_names_its_model_and_retriever() -> None:
    llm = {"model_id": "qwen", "context_length": 4096}
    assert run_setup({"llm": llm}) == Setup("qwen, 4,096 tokens", "none")
    assert run_setup({"llm": llm, "retrieval": {"kind": "bm25", "options": {"k1": 0.9, "b": 0.4}}}).retrieval == (
        "BM25 k1 0.9 b 0.4")
    dense = {"kind": "hybrid", "options": {"embedder": "minilm"}, "rerank": "ms-marco"}
    assert run_setup({"llm": {"config": "smollm2"}, "retrieval": dense}) == Setup("smollm2", "hybrid minilm + rerank ms-marco")
