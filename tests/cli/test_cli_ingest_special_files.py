"""``hopkit ingest`` of a named pipe or a device (issue 70, papercut): "not a regular file", not "file not found".

Before the fix a FIFO, ``/dev/zero`` and ``/dev/null`` were all "file not found", which sends the user looking for
a path that is there. They are refused before they are opened (reading one could block or never end), so the
command runs in a process of its own with a time limit: a hang ends the test.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit


def ingest(tmp_path: Path, *args: str) -> tuple[int, str]:
    """``hopkit ingest ARGS`` into a store in ``tmp_path``: exit code and stderr."""
    env = {**os.environ, "HOPKIT_HOME": str(tmp_path / "home")}
    env.pop("HOPKIT_DB_URL", None)
    done = subprocess.run([sys.executable, "-m", "hopkit.cli", "--db", f"sqlite:///{tmp_path / 'hopkit.db'}",
                           "ingest", *args], capture_output=True, text=True, env=env, timeout=120)
    return done.returncode, done.stderr


@pytest.fixture()
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "questions.jsonl"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("where", ["dataset", "corpus"])
def test_a_named_pipe_or_a_device_is_not_a_regular_file(where: str, fifo: Path, tmp_path: Path) -> None:
    for path, kind in ((fifo, "a named pipe (FIFO)"), (Path("/dev/null"), "a device"),
                       (Path("/dev/zero"), "a device")):
        args = ("jsonl", str(path)) if where == "dataset" else ("sample", "--corpus", str(path))
        code, err = ingest(tmp_path, *args)
        assert code == 2, err
        assert err.startswith(f"hopkit: error: {path}: not a regular file but {kind}; give ") \
            and len(err.splitlines()) == 1, err
        assert "not found" not in err


def test_a_missing_file_is_still_not_found(tmp_path: Path) -> None:
    code, err = ingest(tmp_path, "jsonl", str(tmp_path / "absent.jsonl"))
    assert code == 2 and "jsonl file not found; check the path" in err, err
