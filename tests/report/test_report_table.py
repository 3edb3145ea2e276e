"""Comparison tables: content of the Markdown, text and CSV renderings."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from hopkit.evaluation.aggregate import Estimate, QuestionCost, RunSummary, summarize_run
from hopkit.evaluation.scoring import QuestionScores
from hopkit.report.table import Column, Table, comparison_table, metric_header, to_csv, to_markdown, to_text
from hopkit.usage import ComponentUsage, Usage

pytestmark = pytest.mark.unit


def _usage(calls: int, prompt: int, completion: int, cached: int, llm_s: float, retrieval_s: float,
           total_s: float, **components: float) -> Usage:
    parts = {"model": ComponentUsage(calls, 0.0, calls, llm_s, prompt, cached, completion)}
    if retrieval_s:
        parts["retrieval"] = ComponentUsage(calls, retrieval_s)
    parts.update({name: ComponentUsage(1, seconds) for name, seconds in components.items()})
    return Usage(total_s, parts)


def _ircot() -> RunSummary:
    scores = [QuestionScores(f"q{i}", float(i % 2), 0.5 + 0.1 * (i % 3), 1.0, 0.75, 1.0, 1.0)
              for i in range(20)]
    costs = [QuestionCost(_usage(4, 2000, 120, 1000, 3.0, 0.5, 4.0))] * 20
    return summarize_run("aaa111", "IRCoT K=4", "IRCoT", "hotpotqa", scores, costs)


def _nor() -> RunSummary:
    scores = [QuestionScores(f"q{i}", 0.0, 0.2, 0.0, None, None, None) for i in range(19)]
    costs = [QuestionCost(_usage(1, 300, 20, 0, 0.5, 0.0, 0.6))] * 19 + [
        QuestionCost(_usage(1, 300, 20, 0, 0.5, 0.0, 0.6), failed=True)]
    return summarize_run("bbb222", "NoR", "NoR", "hotpotqa", scores, costs)


def _judged() -> RunSummary:
    scores = [QuestionScores(f"q{i}", 1.0, 1.0, 1.0, 1.0, 1.0, 1.0) for i in range(4)]
    costs = [QuestionCost(_usage(2, 900, 40, 0, 1.0, 0.1, 2.0, **{"judge:relevance": 0.5}))] * 4
    return summarize_run("ccc333", "judged", "MIGRES", "hotpotqa", scores, costs)


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
                               "Para R@15 | Title R@15 | Ans R@15 | LLM Acc | LLM calls/q |")
    assert lines[1].startswith("|---|---|---|---:|")
    ircot = lines[2]
    assert ircot.startswith("| IRCoT K=4 | IRCoT | hotpotqa | 20 | 0 | 50.0 ±")
    assert "| 75.0 ±0.0 | 100.0 ±0.0 |" in ircot
    # the cost columns: cache share, then s/q split into LLM, retrieval and other (4.0 = 3.0 + 0.5 + 0.5)
    assert lines[0].endswith("| Compl tok/q | Cached % | s/q | LLM s/q | Retr s/q | Other s/q |")
    assert ircot.endswith("| 4.00 | 2000 | 120 | 50 | 4.00 | 3.00 | 0.500 | 0.500 |")
    nor = lines[3]
    assert "| NoR | NoR | hotpotqa | 20 | 1 | 0.0 ±0.0 | 20.0 ±0.0 | 0.0 ±0.0 | - | - | - |" in nor
    assert "95% bootstrap interval" in md


def test_llm_accuracy_shows_where_the_run_was_judged_and_a_dash_elsewhere() -> None:
    scores = [QuestionScores(f"q{i}", 0.0, 0.0, 0.0, None, None, None, llm_accuracy=float(i < 3)) for i in range(4)]
    costs = [QuestionCost(_usage(1, 300, 20, 0, 0.5, 0.0, 0.6))] * 4
    judged = summarize_run("ddd444", "judged NoR", "NoR", "hotpotqa", scores, costs)
    table = comparison_table([judged, _nor()])
    keys = [c.key for c in table.columns]
    assert keys.index("llm_accuracy") == keys.index("answer_recall") + 1
    judged_row, nor_row = (dict(zip(keys, row)) for row in table.rows)
    assert judged_row["llm_accuracy"].mean == pytest.approx(0.75) and nor_row["llm_accuracy"] is None
    lines = to_markdown(table).splitlines()
    assert "| - | - | - | 75.0 ±" in lines[2] and "| - | - | - | - |" in lines[3]


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
    assert float(rows[0]["cached_prompt_share"]) == 0.5  # a fraction in CSV, 50 in Markdown


def test_judge_components_get_their_own_columns(tmp_path: Path) -> None:
    table = comparison_table([_ircot(), _judged()])
    assert table.columns[-2].key == "judge_relevance_seconds_per_q"
    assert table.columns[-2].header == "judge:relevance s/q"
    assert table.rows[0][-2] is None and table.rows[1][-2] == pytest.approx(0.5)
    lines = to_markdown(table).splitlines()
    # judges sit between retrieval and other, as in the time-split plot; 2.0 = 1.0 + 0.1 + 0.5 + 0.4
    assert lines[0].endswith("| s/q | LLM s/q | Retr s/q | judge:relevance s/q | Other s/q |")
    assert lines[2].endswith("| 4.00 | 3.00 | 0.500 | - | 0.500 |")
    assert lines[3].endswith("| 2.00 | 1.00 | 0.100 | 0.50 | 0.400 |")
    with to_csv(table, tmp_path / "t.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert rows[0]["judge_relevance_seconds_per_q"] == "" and float(rows[1]["judge_relevance_seconds_per_q"]) == 0.5


def test_runs_without_judges_have_no_component_columns() -> None:
    keys = [c.key for c in comparison_table([_ircot(), _nor()]).columns]
    assert keys[-4:] == ["seconds_per_q", "llm_seconds_per_q", "retrieval_seconds_per_q", "other_seconds_per_q"]


def test_a_component_named_like_a_fixed_column_keeps_its_own_column() -> None:
    scores = [QuestionScores("q0", 1.0, 1.0, 1.0, 1.0, 1.0, 1.0)]
    odd = summarize_run("ddd444", "odd", "MIGRES", "hotpotqa", scores,
                        [QuestionCost(_usage(1, 10, 1, 0, 1.0, 0.1, 2.0, other=0.3))])
    keys = [c.key for c in comparison_table([odd]).columns]
    assert len(keys) == len(set(keys)) and "other_component_seconds_per_q" in keys


def test_a_label_with_model_calls_shows_them_beside_its_own_time(tmp_path: Path) -> None:
    usage = _usage(1, 100, 5, 0, 0.5, 0.1, 3.0, **{"judge:relevance": 0.25})
    usage.components["migres:leaf"] = ComponentUsage(2, 0.05, 2, 1.5, 800, 400, 30)
    scores = [QuestionScores("q0", 1.0, 1.0, 1.0, 1.0, 1.0, 1.0)]
    migres = summarize_run("eee555", "migres", "MIGRES", "hotpotqa", scores, [QuestionCost(usage)])
    table = comparison_table([migres, _nor()])
    headers = [c.header for c in table.columns]
    # the judge made no model call: its own time only; the label: its own time, then its model calls
    assert headers[-8:] == ["LLM s/q", "Retr s/q", "judge:relevance s/q", "migres:leaf s/q", "migres:leaf LLM calls/q",
                            "migres:leaf LLM s/q", "migres:leaf prompt tok/q", "Other s/q"]
    lines = to_markdown(table).splitlines()
    # totals keep the label's model calls: 3 calls, 900 prompt tokens, 2.0 s; 3.0 = 2.0 + 0.1 + 0.25 + 0.05 + 0.6
    assert "| 3.00 | 900 | 35 | 44 | 3.00 | 2.00 | 0.100 | 0.25 | 0.05 | 2.00 | 1.50 | 800 | 0.600 |" in lines[2]
    assert lines[3].endswith("| 0.60 | 0.50 | 0.000 | - | - | - | - | - | 0.100 |")
    with to_csv(table, tmp_path / "t.csv").open(encoding="utf-8") as fh:
        row = next(csv.DictReader(fh))
    assert (float(row["migres_leaf_llm_calls_per_q"]), float(row["migres_leaf_prompt_tokens_per_q"])) == (2.0, 800.0)


def test_metric_headers() -> None:
    assert metric_header("em") == "EM" and metric_header("paragraph_recall", 10) == "Para R@10"
    with pytest.raises(KeyError, match="unknown metric 'accuracy'"):
        metric_header("accuracy")


def test_bad_tables_are_rejected() -> None:
    with pytest.raises(ValueError, match="no runs"):
        comparison_table([])
    with pytest.raises(ValueError, match="row 0 has 2 cells for 1 columns"):
        Table((Column("name", "Run", "text"),), (("a", "b"),))
