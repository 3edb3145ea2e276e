"""`hopkit judge` stores verdicts once and `hopkit evaluate` shows them as the LLM Acc column."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from hopkit.cli import main

pytestmark = pytest.mark.unit

Hopkit = Callable[..., tuple[int, str, str]]

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "src" / "hopkit" / "quickstart" / "sample.jsonl"
NOR = ROOT / "src" / "hopkit" / "configs" / "pipelines" / "nor.yaml"


def scripted(path: Path, replies: list[str]) -> Path:
    path.write_text("_target_: hopkit.llm.fake.ScriptedLLM\nscript: [" + ", ".join(f'"{r}"' for r in replies)
                    + "]\n", encoding="utf-8")
    return path


@pytest.fixture
def hopkit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Hopkit:
    monkeypatch.setenv("HOPKIT_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("HOPKIT_DB_URL", raising=False)
    db = f"sqlite:///{tmp_path / 'hopkit.db'}"

    def call(*args: str) -> tuple[int, str, str]:
        code = main(["--db", db, *args])
        out = capsys.readouterr()
        return code, out.out, out.err

    assert call("ingest", "jsonl", str(SAMPLE), "--name", "qs", "--limit", "4")[0] == 0
    answers = scripted(tmp_path / "reader.yaml", ["Velmora"] * 4)
    assert call("run", str(NOR), "--dataset", "qs", "--llm", str(answers), "--quiet")[0] == 0
    return call


def llm_acc_cell(table: str) -> str:
    lines = table.splitlines()
    header, row = lines[0], next(line for line in lines if line.startswith("nor "))
    end = header.index("LLM Acc") + len("LLM Acc")  # numbers are right-aligned under their header
    return row[:end].rsplit("  ", 1)[-1].strip()


def test_judge_then_evaluate(hopkit: Hopkit, tmp_path: Path) -> None:
    code, out, _ = hopkit("evaluate")
    assert code == 0 and "LLM Acc" not in out.splitlines()[0] and "no LLM judge chosen" in out  # an empty column
    code, out, _ = hopkit("evaluate", "--wide")
    assert code == 0 and llm_acc_cell(out) == "-"
    judge = scripted(tmp_path / "judge.yaml", ["Yes", "No", "Yes", "Hmm"])
    code, out, err = hopkit("judge", "nor", "--llm", str(judge), "--quiet")
    assert code == 0, err
    assert "4 answers, 0 judged before, 4 now, 1 unreadable verdict(s)" in out
    code, out, _ = hopkit("evaluate")
    assert code == 0 and llm_acc_cell(out).startswith("50.0 ±")
    assert "judged by scripted (migres-table15-v2/completion)" in out
    # a rerun asks nothing (the script is spent: a call would fail)
    code, out, err = hopkit("judge", "nor", "--llm", str(scripted(judge, [])), "--quiet")
    assert code == 0 and "4 judged before, 0 now, 1 unreadable" in out, err


def test_evaluate_with_an_unknown_judge_says_which_judges_there_are(hopkit: Hopkit, tmp_path: Path) -> None:
    assert hopkit("judge", "nor", "--llm", str(scripted(tmp_path / "j.yaml", ["Yes"] * 4)), "--quiet")[0] == 0
    code, _, err = hopkit("evaluate", "--judge", "gpt-3.5")
    assert code == 2 and "judge 'gpt-3.5' has no verdict" in err and "scripted" in err
