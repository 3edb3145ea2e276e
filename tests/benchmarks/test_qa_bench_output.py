"""qa_bench writes into the repository only when asked (--write-repository): otherwise its section and plots go
to --out and its runs stay in the store, so benchmarking other questions from a checkout leaks nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(not os.environ.get("HOPKIT_DATA_DIR"), reason="HOPKIT_DATA_DIR is not set")]


def repository_state() -> str:
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "--", "docs", "benchmarks"],
                          cwd=ROOT, capture_output=True, text=True, check=True).stdout


def test_without_write_repository_the_section_goes_to_out_and_the_repository_is_untouched(tmp_path: Path) -> None:
    before = repository_state()
    out = tmp_path / "sections"
    process = subprocess.run(
        [sys.executable, "-m", "hopkit.campaign.qa_bench", "--datasets", "hotpotqa", "--methods", "nor", "--limit", "2",
         "--llm", "smollm2", "--db", f"sqlite:///{tmp_path / 'bench.db'}", "--out", str(out),
         "--section", "private"], cwd=ROOT, capture_output=True, text=True, timeout=600,
        env={**os.environ, "HOPKIT_HOME": str(tmp_path / "home")})
    assert process.returncode == 0, process.stdout + process.stderr
    section = (out / "private.md").read_text(encoding="utf-8")
    assert "<!-- bench:private -->" in section and "--write-repository" not in section
    assert (out / "img" / "private_comparison.png").exists()
    assert f"wrote the section private to {out / 'private.md'}" in process.stdout
    assert repository_state() == before


def test_report_only_on_a_store_without_the_runs_says_so_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "sections"
    process = subprocess.run(
        [sys.executable, "-m", "hopkit.campaign.qa_bench", "--datasets", "hotpotqa", "--methods", "nor", "--limit", "2",
         "--llm", "smollm2", "--db", f"sqlite:///{tmp_path / 'bench.db'}", "--out", str(out),
         "--section", "private", "--report-only"], cwd=ROOT, capture_output=True, text=True, timeout=600,
        env={**os.environ, "HOPKIT_HOME": str(tmp_path / "home")})
    assert process.returncode == 1, process.stdout + process.stderr
    assert "section private: no stored run answered every compared question (nor on hotpotqa)" in process.stderr
    assert "--report-only answers nothing" in process.stderr and "Traceback" not in process.stderr
    assert not (out / "private.md").exists()
