"""evaluate / report / runs / ingest --replace on the command line, with a scripted LLM.

Each test reproduces a fault of the hardening issue: a re-ingested dataset
re-scoring old runs, a run with 0 results breaking every evaluation, two runs
sharing a name crashing the report halfway, and tracebacks for a bad --out.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from .running import StoreCli


pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "src" / "hopkit" / "quickstart" / "sample.jsonl"
PIPELINES = ROOT / "src" / "hopkit" / "configs" / "pipelines"
REPORT_FILES = ("comparison.md", "comparison.csv", "comparison.png", "time_split.png", "leaderboard.md")
# ... and the HTML report: its two pages and the folder of their data
HTML_FILES = ("index.html", "explorer.html", "html-report")


class Hopkit(StoreCli):
    """Runs ``hopkit --db <url> ...`` in-process and returns (exit code, stdout, stderr)."""

    def __init__(self, db: str, llm: Path, capsys: pytest.CaptureFixture[str]) -> None:
        super().__init__(db, capsys)
        self.llm = llm

    def run(self, config: str, *options: str) -> str:
        return self.ok("run", str(PIPELINES / config), "--dataset", "qs", "--llm", str(self.llm),
                       "--quiet", *options)


@pytest.fixture
def hopkit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
           capsys: pytest.CaptureFixture[str]) -> Hopkit:
    monkeypatch.setenv("HOPKIT_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("HOPKIT_DB_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    llm = tmp_path / "scripted.yaml"
    llm.write_text("_target_: hopkit.llm.fake.ScriptedLLM\nscript: [" + ", ".join(["Velmora"] * 100)
                   + "]\n", encoding="utf-8")
    tool = Hopkit(f"sqlite:///{tmp_path / 'hopkit.db'}", llm, capsys)
    tool.ok("ingest", "jsonl", str(SAMPLE), "--name", "qs", "--limit", "4")
    return tool


def row_of(table: str, label: str) -> str:
    lines = [line for line in table.splitlines() if line.startswith(label + " ")]
    assert len(lines) == 1, table
    return lines[0]


def test_reingest_marks_runs_stale_and_evaluate_never_rescores_them(hopkit: Hopkit) -> None:
    """Before the fix evaluate re-scored the old results against the new corpus, silently."""
    first = re.search(r"\(([0-9a-f]{16})\)", hopkit.run("oner.yaml"))
    assert first is not None
    old_run = first.group(1)
    assert "oner" in hopkit.ok("evaluate")
    out = hopkit.ok("ingest", "jsonl", str(SAMPLE), "--name", "qs", "--limit", "6", "--seed", "1",
                    "--replace")
    assert "1 earlier run(s) on qs" in out and "stale" in out
    code, out, err = hopkit("evaluate")
    assert code == 2 and "oner" not in out
    assert f"skipped: run 'oner' ({old_run}) is stale" in err and "re-ingested" in err
    assert "none of the 1 selected run(s) can be scored" in err
    listing = hopkit.ok("runs")
    assert "STALE" in row_of(listing, old_run)
    hopkit.run("oner.yaml")  # the same config on the new corpus is a new run
    code, out, err = hopkit("evaluate", "--dataset", "qs")
    assert code == 0 and len([line for line in out.splitlines() if line.startswith("oner ")]) == 1
    assert f"({old_run}) is stale" in err


def test_a_run_with_no_results_does_not_break_evaluation(hopkit: Hopkit, tmp_path: Path) -> None:
    """Before the fix a run with 0 results (--limit 0, or killed early) raised ValueError."""
    assert "0 questions" in hopkit.run("nor.yaml", "--limit", "0")
    hopkit.run("oner.yaml", "--limit", "2")
    code, out, err = hopkit("evaluate", "--wide")
    assert code == 0, err
    assert row_of(out, "oner").split()[3] == "2"
    assert "skipped: run 'nor'" in err and "no results yet" in err
    code, _, err = hopkit("report", "--out", str(tmp_path / "report"))
    assert code == 0, err
    assert "| oner |" in (tmp_path / "report" / "comparison.md").read_text(encoding="utf-8")


def test_two_runs_with_one_name_get_distinct_rows_and_a_whole_report(hopkit: Hopkit,
                                                                     tmp_path: Path) -> None:
    """Before the fix report wrote comparison.md and .csv, then crashed with a ValueError."""
    hopkit.run("oner.yaml", "--limit", "2")
    hopkit.run("oner.yaml", "--limit", "2", "--top-k", "4")
    out = tmp_path / "report"
    code, _, err = hopkit("report", "--out", str(out))
    assert code == 0, err
    table, paired = (out / "comparison.md").read_text().split("## Paired comparisons")
    labels = re.findall(r"^\| (oner \([0-9a-f]{8}\)) \|", table, re.M)
    assert len(labels) == 2 and labels[0] != labels[1]
    assert re.search(rf"^\| {re.escape(labels[0])} \| {re.escape(labels[1])} \| EM \|", paired, re.M)
    assert sorted(p.name for p in out.iterdir()) == sorted(REPORT_FILES + HTML_FILES)


def test_run_takes_a_name(hopkit: Hopkit) -> None:
    out = hopkit.run("oner.yaml", "--limit", "2", "--top-k", "3", "--name", "oner-k3")
    assert out.startswith("run oner-k3 (")
    assert "oner-k3" in hopkit.ok("runs")
    assert row_of(hopkit.ok("evaluate"), "oner-k3")


def test_a_report_is_written_completely_or_not_at_all(hopkit: Hopkit, tmp_path: Path) -> None:
    """Before the fix three files were written before time_split.png failed."""
    hopkit.run("oner.yaml", "--limit", "2")
    out = tmp_path / "report"
    (out / "time_split.png").mkdir(parents=True)
    code, _, err = hopkit("report", "--out", str(out))
    assert code == 2 and f"{out / 'time_split.png'} is a folder" in err
    assert [p.name for p in out.iterdir()] == ["time_split.png"]


def test_out_onto_an_existing_file_is_a_one_line_error(hopkit: Hopkit, tmp_path: Path) -> None:
    hopkit.run("oner.yaml", "--limit", "2")
    existing = tmp_path / "notes.txt"
    existing.write_text("keep me", encoding="utf-8")
    for out in (existing, existing / "report"):
        code, _, err = hopkit("report", "--out", str(out))
        assert code == 2 and err.startswith("hopkit: error: cannot write the report to ")
        assert str(out) in err and len(err.strip().splitlines()) == 1
    assert existing.read_text(encoding="utf-8") == "keep me"


def _writable(folder: Path) -> bool:
    probe = folder / f"hopkit-probe-{os.getpid()}"
    try:
        probe.mkdir()
    except OSError:
        return False
    probe.rmdir()
    return True


def _read_only_folder(tmp_path: Path) -> Path:
    """A folder nobody may write into: a chmod 555 one, or (as root, who ignores that) sysfs."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    for candidate in (folder, Path("/sys")):
        if candidate.is_dir() and not _writable(candidate):
            return candidate
    pytest.skip("no read-only folder available (running as root without sysfs)")


def test_out_into_a_read_only_folder_is_a_one_line_error(hopkit: Hopkit, tmp_path: Path) -> None:
    hopkit.run("oner.yaml", "--limit", "2")
    read_only = _read_only_folder(tmp_path)
    try:
        for out in (read_only, read_only / "report"):
            code, _, err = hopkit("report", "--out", str(out))
            assert code == 2 and err.startswith("hopkit: error: cannot write the report to ")
            assert str(out) in err and len(err.strip().splitlines()) == 1
    finally:
        (tmp_path / "read-only").chmod(0o755)
