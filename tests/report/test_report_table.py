"""Comparison tables: content of the Markdown, text and CSV renderings."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from hopkit.evaluation.aggregate import Estimate, QuestionCost, RunSummary, summarize_run
from hopkit.evaluation.scoring import QuestionScores
from hopkit.report.table import Column, Table, comparison_table, to_csv, to_markdown, to_text

pytestmark = pytest.mark.unit


def _ircot() -> RunSummary:
    scores = [QuestionScores(f"q{i}", float(i % 2), 0.5 + 0.1 * (i % 3), 1.0, 0.75, 1.0, 1.0)
              for i in range(20)]
    costs = [QuestionCost(4, 2000, 120, 1000, 3.0, 0.5, 4.0)] * 20
    return summarize_run("aaa111", "IRCoT K=4", "IRCoT", "hotpotqa", scores, costs)


def _nor() -> RunSummary:
    scores = [QuestionScores(f"q{i}", 0.0, 0.2, 0.0, None, None, None) for i in range(19)]
    costs = [QuestionCost(1, 300, 20, 0, 0.5, 0.0, 0.6)] * 19 + [
        QuestionCost(1, 300, 20, 0, 0.5, 0.0, 0.6, failed=True)]
    return summarize_run("bbb222", "NoR", "NoR", "hotpotqa", scores, costs)


def test_comparison_table_cells() -> None:
    table = comparison_table([_ircot(), _nor()])
    keys = [c.key for c in table.columns]
    assert keys[:5] == ["name", "method", "dataset", "n", "failed"]
    row = dict(zip(keys, table.rows[1]))
    assert (row["name"], row["n"], row["failed"]) == ("NoR", 20, 1)
    assert row["paragraph_recall"] is None
    assert isinstance(row["em"], Estimate)
    assert row["llm_calls_per_q"] == pytest.approx(1.0)


def test_markdown_shows_mean_and_half_width_in_percent() -> None:
    md = to_markdown(comparison_table([_ircot(), _nor()]))
    lines = md.splitlines()
    assert lines[0].startswith("| Run | Method | Dataset | n | Failed | EM | F1 | Cover-EM | "
                               "Para R@15 | Title R@15 | Ans R@15 | LLM calls/q |")
    assert lines[1].startswith("|---|---|---|---:|")
    ircot = lines[2]
    assert ircot.startswith("| IRCoT K=4 | IRCoT | hotpotqa | 20 | 0 | 50.0 ±")
    assert "| 75.0 ±0.0 | 100.0 ±0.0 |" in ircot
    assert ircot.endswith("| 4.00 | 2000 | 120 | 4.00 |")
    nor = lines[3]
    assert "| NoR | NoR | hotpotqa | 20 | 1 | 0.0 ±0.0 | 20.0 ±0.0 | 0.0 ±0.0 | - | - | - |" in nor
    assert "95% bootstrap interval" in md


def test_markdown_escapes_pipes_in_names() -> None:
    table = Table((Column("name", "Run", "text"),), (("a|b",),))
    assert "| a\\|b |" in to_markdown(table)


def test_text_is_aligned() -> None:
    text = to_text(comparison_table([_ircot(), _nor()]))
    lines = text.splitlines()
    header, rule, first, second = lines[:4]
    assert set(rule) <= {"-", " "}
    # text columns are left-aligned: the dataset starts where its header starts
    assert first.index("hotpotqa") == second.index("hotpotqa") == header.index("Dataset")
    # number columns are right-aligned: the last value ends where "s/q" ends
    assert header.endswith("s/q")
    assert len(first) == len(second) == len(header) == len(rule)
    assert "Title R@15" in header


def test_budget_changes_headers() -> None:
    table = comparison_table([_ircot()], budget=10)
    assert "Para R@10" in [c.header for c in table.columns]


def test_csv_writes_raw_fractions(tmp_path: Path) -> None:
    path = to_csv(comparison_table([_ircot(), _nor()]), tmp_path / "out" / "table.csv")
    with path.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 2
    assert float(rows[0]["paragraph_recall"]) == 0.75
    assert float(rows[0]["em_low"]) < float(rows[0]["em"]) == 0.5 < float(rows[0]["em_high"])
    assert rows[1]["paragraph_recall"] == rows[1]["paragraph_recall_high"] == ""
    assert rows[1]["failed"] == "1"
    assert float(rows[1]["prompt_tokens_per_q"]) == 300.0


def test_bad_tables_are_rejected() -> None:
    with pytest.raises(ValueError, match="no runs"):
        comparison_table([])
    with pytest.raises(ValueError, match="row 0 has 2 cells for 1 columns"):
        Table((Column("name", "Run", "text"),), (("a", "b"),))
