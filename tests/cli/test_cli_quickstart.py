"""`hopkit quickstart` prints its table, then says what the numbers mean (no model is run here)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hopkit.cli import main
from hopkit.evaluation.aggregate import Estimate, RunSummary

pytestmark = pytest.mark.unit


def summary(name: str, recall: float | None) -> RunSummary:
    metrics = {"em": Estimate(0.0, 0.0, 0.0, 24), "f1": Estimate(0.05, 0.0, 0.1, 24)}
    if recall is not None:
        metrics["paragraph_recall"] = Estimate(recall, recall - 0.1, recall + 0.1, 24)
    return RunSummary(f"id-{name}", name, name.split("-")[-1], "quickstart", 24, 0, metrics,
                      {"llm_calls_per_q": 1.0, "prompt_tokens_per_q": 500.0, "completion_tokens_per_q": 10.0,
                       "seconds_per_q": 2.0, "other_seconds_per_q": 0.1, "cached_prompt_share": 0.0})


@pytest.mark.parametrize(("llm", "hint"), [
    ([], "hopkit quickstart --llm qwen2.5-1.5b-instruct"),
    (["--llm", "qwen2.5-1.5b-instruct"], "hopkit compare quickstart-oner quickstart-ircot"),
])
def test_the_table_is_followed_by_how_to_read_it(llm: list[str], hint: str, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    asked: list[str] = []

    def runs(session_factory: Any, *, llm: str, limit: int | None) -> list[RunSummary]:
        asked.append(llm)
        return [summary("quickstart-nor", None), summary("quickstart-oner", 0.5), summary("quickstart-ircot", 0.75)]

    monkeypatch.setattr("hopkit.quickstart.run.run_quickstart", runs)
    monkeypatch.setattr("hopkit.cli.quickstart.write_run_report", lambda *args, **kwargs: None)
    assert main(["--db", f"sqlite:///{tmp_path / 'h.db'}", "quickstart", *llm]) == 0
    out = capsys.readouterr().out
    table, notes = out.split("\nHow to read this table:\n")
    assert "quickstart-ircot" in table and "How to read" not in table
    assert "gold paragraphs found was quickstart-oner 50%, quickstart-ircot 75%" in notes
    assert hint in notes
    assert asked == [llm[-1] if llm else "smollm2"]
