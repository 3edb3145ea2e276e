"""``hopkit index`` over a finished BM25 index one of whose files changed (same size): built again with a
warning naming the file; where it cannot be built again, one line naming the file and exit 2 (issue 70)."""

from __future__ import annotations

import logging
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.retrieval.test_bm25_integrity import reverse_array

from .running import hopkit

pytestmark = pytest.mark.unit


def bm25_folder(home: Path) -> Path:
    (found,) = (home / "indexes").glob("bm25-*")
    return found


def test_index_rebuilds_a_changed_bm25_index_or_says_in_one_line_why_it_cannot(
        db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    assert hopkit(capsys, "--db", db, "ingest", "sample")[0] == 0
    assert hopkit(capsys, "--db", db, "index", "--quiet")[0] == 0
    path = bm25_folder(tmp_path / "home") / "data.csc.index.npy"
    reverse_array(path)
    with caplog.at_level(logging.WARNING):
        code, out, err = hopkit(capsys, "--db", db, "index", "--quiet")
    assert code == 0 and "index bm25 ready" in out, err
    assert f"{path}: its bytes no longer match the CRC-32 recorded when the BM25 index was finished; building the " \
           "index again" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        code, _, err = hopkit(capsys, "--db", db, "index", "--quiet")
    assert code == 0 and "CRC-32" not in caplog.text + err

    reverse_array(bm25_folder(tmp_path / "home") / "data.csc.index.npy")
    indexes = tmp_path / "home" / "indexes"
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(indexes)]).returncode:
        pytest.skip("cannot make the index folder immutable here (chattr needs root and a filesystem that has it)")
    try:
        code, _, err = hopkit(capsys, "--db", db, "index", "--quiet")
    finally:
        subprocess.run(["chattr", "-i", str(indexes)], check=True)
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and "Traceback" not in err, err
    assert lines[-1].endswith(f"{path}: its bytes no longer match the CRC-32 recorded when the BM25 index was "
                              "finished, and the index cannot be built again (Operation not permitted); delete "
                              f"{path.parent} (or make its folder writable) and run again"), err
