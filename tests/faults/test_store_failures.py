"""A store on a full file system stops the run instead of losing one paid answer at a time (issue 48, item 4).

With the SQLite file on a full file system, 22 of 24 questions "failed" with "disk is full" and the
run exited 0: every question was asked, paid for and lost. The file system here is a real tmpfs of
a few hundred KiB, filled up after the dataset is ingested; the test is skipped where mounting is
not allowed (not root).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hopkit.cli import main
from hopkit.llm.testing_server import serve_fake_openai

from .small_disk import fill, small_disk  # noqa: F401 (small_disk: a fixture)

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "src" / "hopkit" / "quickstart" / "sample.jsonl"
NOR = ROOT / "src" / "hopkit" / "configs" / "pipelines" / "nor.yaml"
LEAVE = 256 * 1024  # bytes left free on the full disk


def test_a_full_disk_under_the_store_stops_the_run_with_exit_2(
        small_disk: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOPKIT_HOME", str(tmp_path / "home"))
    db = f"sqlite:///{small_disk / 'hopkit.db'}"
    assert main(["--db", db, "ingest", "jsonl", str(SAMPLE), "--name", "toy"]) == 0
    reply = {"text": "Tarsk"}
    with serve_fake_openai(lambda prompt: reply["text"]) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        run = ["--db", db, "run", str(NOR), "--llm", "openai-compatible", "--quiet", "--batch-size", "1"]
        assert main([*run, "--limit", "1"]) == 0  # the run is registered while there is room
        capsys.readouterr()
        fill(small_disk, leave=LEAVE)
        reply["text"] = "Tarsk " + "and more words " * 27000  # 400 KB: no answer fits, a failure row does
        asked_before = len(server.requests)
        code = main(run)
        asked = len(server.requests) - asked_before
    err = capsys.readouterr().err
    assert code == 2, err
    assert "could not be stored" in err or "refused the results of 3 questions in a row" in err, err
    assert "disk is full" in err or "database or disk is full" in err, err
    assert asked <= 3, f"{asked} of 24 questions were asked of the model with nowhere to keep the answers"
