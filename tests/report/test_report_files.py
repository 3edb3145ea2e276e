"""Run labels that stay distinct, and a report written all or nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from hopkit.errors import ReportError
from hopkit.evaluation.aggregate import Estimate, RunSummary
from hopkit.report.files import REPORT_FILES, write_report
from hopkit.report.plot import plot_comparison
from hopkit.report.table import comparison_table, run_labels, to_markdown

pytestmark = pytest.mark.unit


def summary(run_id: str, name: str, dataset: str = "hotpotqa", em: float = 0.4) -> RunSummary:
    metrics = {"em": Estimate(em, em - 0.05, em + 0.05, 50), "f1": Estimate(em, em - 0.05, em + 0.05, 50)}
    return RunSummary(run_id, name, "oner", dataset, 50, 0, metrics,
                      {"llm_calls_per_q": 1.0, "prompt_tokens_per_q": 900.0, "completion_tokens_per_q": 20.0,
                       "seconds_per_q": 1.0, "other_seconds_per_q": 0.1, "cached_prompt_share": 0.0,
                       "llm_seconds_per_q": 0.8, "retrieval_seconds_per_q": 0.1})


SAME_NAME = [summary("aaaaaaaa11111111", "oner"), summary("bbbbbbbb22222222", "oner", em=0.5),
             summary("cccccccc33333333", "oner", dataset="musique"), summary("dddddddd44444444", "ircot")]


def test_runs_sharing_a_name_on_one_dataset_get_distinct_labels() -> None:
    assert run_labels(SAME_NAME) == ["oner (aaaaaaaa)", "oner (bbbbbbbb)", "oner", "ircot"]
    same_prefix = [summary("aaaaaaaa11111111", "x"), summary("aaaaaaaa22222222", "x")]
    assert run_labels(same_prefix) == ["x (aaaaaaaa11111111)", "x (aaaaaaaa22222222)"]
    markdown = to_markdown(comparison_table(SAME_NAME))
    assert "| oner (aaaaaaaa) |" in markdown and "| oner (bbbbbbbb) |" in markdown


def test_plot_draws_runs_sharing_a_name(tmp_path: Path) -> None:
    """Before the fix plot_comparison raised ValueError("two runs are named 'oner' ...")."""
    assert plot_comparison(SAME_NAME, tmp_path / "cmp.png").stat().st_size > 10_000


def test_write_report_writes_every_file_and_replaces_an_earlier_report(tmp_path: Path) -> None:
    out = tmp_path / "reports" / "today"
    assert write_report(SAME_NAME[:1], out) == tuple(out / name for name in REPORT_FILES)
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    write_report(SAME_NAME, out)
    assert sorted(p.name for p in out.iterdir()) == sorted([*REPORT_FILES, "notes.txt"])
    assert "oner (bbbbbbbb)" in (out / "comparison.md").read_text(encoding="utf-8")


def test_a_failing_plot_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full_disk(*_: object) -> Path:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("hopkit.report.plot.plot_time_split", full_disk)
    out = tmp_path / "new" / "report"
    with pytest.raises(ReportError, match=f"cannot write the report to {out}: No space left"):
        write_report(SAME_NAME, out)
    assert list(tmp_path.iterdir()) == []  # the folders it created are gone too
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    (earlier / "comparison.md").write_text("old table", encoding="utf-8")
    with pytest.raises(ReportError):
        write_report(SAME_NAME, earlier)
    assert [p.name for p in earlier.iterdir()] == ["comparison.md"]
    assert (earlier / "comparison.md").read_text(encoding="utf-8") == "old table"
