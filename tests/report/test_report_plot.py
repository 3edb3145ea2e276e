"""Plots are written as valid, non-trivial PNG files."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from hopkit.errors import UnknownNameError
from hopkit.evaluation.aggregate import Estimate, RunSummary
from hopkit.report.plot import RecallCurve, plot_comparison, plot_recall_curves, plot_time_split, time_split_parts

pytestmark = pytest.mark.unit

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _summary(name: str, dataset: str, em: float, recall: float | None, **judges: float) -> RunSummary:
    metrics = {"em": Estimate(em, em - 0.05, em + 0.05, 100),
               "f1": Estimate(em + 0.1, em + 0.05, em + 0.15, 100)}
    if recall is not None:
        metrics["paragraph_recall"] = Estimate(recall, recall - 0.04, recall + 0.04, 100)
    cost = {"llm_calls_per_q": 3.0, "prompt_tokens_per_q": 1500.0, "completion_tokens_per_q": 80.0,
            "seconds_per_q": 2.0 + sum(judges.values()), "other_seconds_per_q": 0.3, "cached_prompt_share": 0.2,
            "llm_seconds_per_q": 1.4, "retrieval_seconds_per_q": 0.3,
            **{f"judge_{j}_seconds_per_q": s for j, s in judges.items()}}
    return RunSummary(f"id-{name}-{dataset}", name, name.split()[0], dataset, 100, 0, metrics, cost,
                      tuple(f"judge:{j}" for j in sorted(judges)))


RUNS = [
    _summary("NoR", "hotpotqa", 0.2, None),
    _summary("OneR", "hotpotqa", 0.35, 0.55),
    _summary("IRCoT", "hotpotqa", 0.45, 0.72),
    _summary("NoR", "2wikimultihopqa", 0.25, None),
    _summary("IRCoT", "2wikimultihopqa", 0.5, 0.68),
]


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_plot_comparison_writes_png(tmp_path: Path) -> None:
    path = plot_comparison(RUNS, tmp_path / "plots" / "cmp.png")
    assert path == tmp_path / "plots" / "cmp.png"
    assert path.stat().st_size > 10_000
    width, height = _png_size(path)
    assert width > 2 * height  # three panels side by side


def test_plot_comparison_single_metric_and_missing_metric(tmp_path: Path) -> None:
    path = plot_comparison(RUNS[:1], tmp_path / "nor.png", metrics=("paragraph_recall",))
    assert path.stat().st_size > 2_000
    _png_size(path)


def test_plot_comparison_rejects_bad_input(tmp_path: Path) -> None:
    with pytest.raises(UnknownNameError, match="bleu"):
        plot_comparison(RUNS, tmp_path / "x.png", metrics=("em", "bleu"))
    with pytest.raises(ValueError, match="given twice"):
        plot_comparison([RUNS[0], RUNS[0]], tmp_path / "x.png")
    with pytest.raises(ValueError, match="no runs"):
        plot_comparison([], tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


def test_plot_time_split_writes_png(tmp_path: Path) -> None:
    path = plot_time_split(RUNS, tmp_path / "time.png")
    assert path.stat().st_size > 10_000
    width, height = _png_size(path)
    assert width > height
    with pytest.raises(ValueError):
        plot_time_split([], tmp_path / "empty.png")


def test_plot_time_split_draws_judge_components(tmp_path: Path) -> None:
    runs = [RUNS[0], _summary("MIGRES", "hotpotqa", 0.5, 0.7, relevance=0.6, support=0.2)]
    assert list(time_split_parts(RUNS)) == ["LLM", "retrieval", "other"]
    parts = time_split_parts(runs)
    assert list(parts) == ["LLM", "retrieval", "judge:relevance", "judge:support", "other"]
    assert parts["judge:relevance"] == [0.0, 0.6] and parts["LLM"] == [1.4, 1.4]
    assert plot_time_split(runs, tmp_path / "judged.png").stat().st_size > 10_000


def test_plot_recall_curves_draws_one_panel_per_dataset(tmp_path: Path) -> None:
    curves = [RecallCurve("hotpotqa", [0.3, 0.5, 0.7, 0.8], [("IRCoT", 3.5, 0.85), ("IRCoT zero-shot", 2.0, 0.6)]),
              RecallCurve("musique", [0.2, 0.3, 0.4, 0.45], [("IRCoT", 4.0, 0.5)])]
    path = plot_recall_curves(curves, tmp_path / "recall.png")
    assert path.stat().st_size > 10_000
    width, height = _png_size(path)
    assert width > 1.5 * height  # two panels side by side


def test_plot_recall_curves_rejects_empty_input(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no datasets"):
        plot_recall_curves([], tmp_path / "none.png")
    with pytest.raises(ValueError, match="musique"):
        plot_recall_curves([RecallCurve("musique", [], [])], tmp_path / "empty.png")
