"""The leaderboard's reference rows: each dataset's published results under its runs, marked as not hopkit runs,
each with the column naming how its setting differs from the runs beside it; and docs/leaderboard.md shows them."""

from __future__ import annotations

from pathlib import Path

import pytest

from hopkit.evaluation.aggregate import Estimate, RunSummary
from hopkit.methods.published import all_published
from hopkit.report.leaderboard import Setup, leaderboard
from hopkit.report.published_rows import reference_tables, run_settings

pytestmark = pytest.mark.unit

PAGE = Path(__file__).resolve().parents[2] / "docs" / "leaderboard.md"


def summary(run_id: str, name: str, method: str, dataset: str = "hotpotqa", n: int = 30) -> RunSummary:
    em = Estimate(0.3, 0.2, 0.4, n)
    return RunSummary(run_id, name, method, dataset, n, 0, {"em": em, "f1": em, "cover_em": em},
                      {"seconds_per_q": 1.0})


def config(model: str, retrieval: dict[str, object] | None, k: int | None) -> dict[str, object]:
    return {"llm": {"model_id": model}, "retrieval": retrieval, "method": {} if k is None else {"k": k}}


def cells(page: str, row: str) -> list[str]:
    line = next(line for line in page.splitlines() if f"| {row} |" in line)
    return [cell.strip() for cell in line.strip("|").split("|")]


def test_each_dataset_shows_its_published_rows_with_how_their_setting_differs() -> None:
    summaries = [summary("a", "oner", "oner"), summary("b", "nor", "nor"), summary("c", "oner", "oner", "strategyqa")]
    configs = {"a": config("qwen", {"kind": "bm25", "options": {}}, 5), "b": config("qwen", None, None),
               "c": config("qwen", {"kind": "bm25", "options": {}}, 5)}
    settings = run_settings(summaries, configs.__getitem__, lambda dataset: None)
    tables = reference_tables(summaries, settings, all_published())
    assert set(tables) == {"hotpotqa"}  # no published row is of StrategyQA
    page = leaderboard(summaries, {run_id: Setup("qwen", "BM25") for run_id in configs}, references=tables)
    section = page.split("## hotpotqa")[1].split("## strategyqa")[0]
    assert "**not hopkit runs**" in section and "| setting differs from the runs in |" in section
    assert section.index("| 1 | ") < section.index("Published results")  # below the ranked runs, not in them
    oner = cells(section, "Standard RAG")
    assert oner[2:7] == ["oner", "Llama3-8B-Instruct", "first 1,000 of dev", "25.1", "35.3"]
    assert oner[0].startswith("[FlashRAG benchmark sheet, tab 'Base'](https://github.com/RUC-NLPIR/FlashRAG/blob/")
    assert oner[7] == ("model Llama3-8B-Instruct (runs: qwen); corpus wiki18, DPR's December 2018 Wikipedia "
                       "(wiki18_100w, 100-word passages) (runs: the dataset's own pooled paragraphs); retriever "
                       "e5-base-v2, Faiss Flat (runs: BM25 k1 1.2 b 0.75); questions first 1,000 of dev (runs: 30)")
    # NoR retrieves nothing: its row says nothing of corpus, retriever or k.
    assert cells(section, "Naive Generation")[7] == ("model Llama3-8B-Instruct (runs: qwen); questions first 1,000 "
                                                     "of dev (runs: 30)")
    assert cells(section, "IRCoT")[7] == "no hopkit run of ircot on this dataset"


def test_a_setting_whose_source_states_no_k_says_so() -> None:
    summaries = [summary("a", "oner", "oner")]
    settings = run_settings(summaries, lambda _: config("qwen", {"kind": "bm25", "options": {}}, 5), lambda _: None)
    table = reference_tables(summaries, settings, all_published())["hotpotqa"]
    assert "k not stated by the source (runs: 5)" in cells(table, "Single-step Approach")[7]
    assert "k 3 (runs: 5)" in cells(table, "RAG")[7]


def test_a_run_in_the_published_setting_differs_in_nothing() -> None:
    summaries = [summary("a", "oner", "oner", n=1000)]
    settings = run_settings(summaries, lambda _: config("meta-llama/Meta-Llama-3-8B-Instruct", {
        "kind": "dense", "options": {"embedder": "e5-base-v2"}}, 5), lambda dataset: "wiki18")
    table = reference_tables(summaries, settings, all_published())["hotpotqa"]
    assert cells(table, "Standard RAG")[7] == "none"
    # A model server's run stores the config's name and the model it asks for: the model is compared.
    served = {"llm": {"config": "openai-compatible", "model": "meta-llama/Meta-Llama-3-8B-Instruct"},
              "retrieval": {"kind": "dense", "options": {"embedder": "e5-base-v2"}}, "method": {"k": 5}}
    settings = run_settings(summaries, lambda _: served, lambda dataset: "wiki18")
    assert cells(reference_tables(summaries, settings, all_published())["hotpotqa"], "Standard RAG")[7] == "none"


def test_the_repository_leaderboard_shows_flashrags_rows_under_each_dataset() -> None:
    page = PAGE.read_text(encoding="utf-8")
    for dataset, rows in (("hotpotqa", ("Standard RAG", "IRCoT", "search-r1", "RAG", "Search-R1-instruct",
                                        "Single-step Approach")), ("2wikimultihopqa", ("FLARE", "Adaptive-RAG (Ours)")),
                          ("musique", ("r1-searcher", "Search-o1", "Multi-step Approach"))):
        section = page.split(f"## {dataset}\n")[1].split("\n## ")[0]
        assert "Published results beside these runs: **not hopkit runs**" in section
        section = section.split("Published results")[1]
        for row in rows:
            assert "model " in cells(section, row)[7]
