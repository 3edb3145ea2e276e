"""Archived results are readable where they lie: a SQLite store on a read-only mount (issue 48, item 6).

`runs`, `evaluate`, `report`, `compare` and `export` all failed with "unable to open database
file": SQLite's WAL mode needs to create a shared-memory file beside the database even to read
it. Commands that only read now open the store read-only (immutable where nothing beside it
can be written). The mount is a real read-only bind mount; the test is skipped where mounting
is not allowed (not root).
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path
from typing import Iterator

import pytest

from hopkit.cli import main
from hopkit.errors import StoreError
from hopkit.llm.testing_server import serve_fake_openai
from hopkit.store.connection import DBConnection

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "src" / "hopkit" / "quickstart" / "sample.jsonl"


@pytest.fixture(params=["closed", "with-log"])
def archive(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
            capsys: pytest.CaptureFixture[str]) -> Iterator[Path]:
    """A store with two OneR runs, archived in ``written/`` and seen read-only at ``archive/``: the
    database file alone ("closed", as hopkit leaves it when it exits), or with the write-ahead log and
    shared-memory files of a process that never closed it ("with-log", the newest writes only there)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOPKIT_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("HOPKIT_DB_URL", raising=False)
    working, written, seen = tmp_path / "working", tmp_path / "written", tmp_path / "archive"
    for folder in (working, written, seen):
        folder.mkdir()
    db = f"sqlite:///{working / 'hopkit.db'}"
    assert main(["--db", db, "ingest", "jsonl", str(SAMPLE), "--name", "toy", "--limit", "4"]) == 0
    with serve_fake_openai(lambda prompt: "Caddow Cross") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        for k in ("1", "2"):
            assert main(["--db", db, "run", "oner", "--llm", "openai-compatible", "--top-k", k, "--name",
                         f"oner-k{k}", "--quiet"]) == 0
    capsys.readouterr()
    if request.param == "closed":
        with closing(sqlite3.connect(working / "hopkit.db")) as connection:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        shutil.copy(working / "hopkit.db", written / "hopkit.db")
    else:
        for part in working.iterdir():
            shutil.copy(part, written / part.name)
        assert (written / "hopkit.db-wal").stat().st_size > 0
    mounted = subprocess.run(["mount", "--bind", str(written), str(seen)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot bind-mount here: {mounted.stderr.strip()}")
    try:
        read_only = subprocess.run(["mount", "-o", "remount,bind,ro", str(seen)], capture_output=True, text=True)
        if read_only.returncode != 0:
            pytest.skip(f"cannot make a mount read-only here: {read_only.stderr.strip()}")
        yield seen
    finally:
        subprocess.run(["umount", "-l", str(seen)], check=False)


def fingerprint(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("command", [["runs"], ["datasets"], ["evaluate"], ["compare", "oner-k1", "oner-k2"],
                                     ["report", "--out", "{out}/report"], ["export", "oner-k1", "--out",
                                                                            "{out}/runs.jsonl.gz"]],
                         ids=lambda c: c[0])
def test_a_command_that_only_reads_reads_a_store_on_a_read_only_mount(
        archive: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    before = fingerprint(archive)
    args = [part.format(out=tmp_path) for part in command]
    code = main(["--db", f"sqlite:///{archive / 'hopkit.db'}", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "unable to open" not in err
    assert fingerprint(archive) == before
    if command[0] == "runs":
        assert "oner-k1" in out and "oner-k2" in out and "4 done" in out
    if command[0] == "evaluate":
        assert "oner-k1" in out


def test_a_command_that_writes_says_the_store_cannot_be_written(archive: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--db", f"sqlite:///{archive / 'hopkit.db'}", "delete", "oner-k1"])
    assert code == 2
    err = capsys.readouterr().err
    assert ("cannot be written (a read-only folder or mount)" in err and "copy it to a writable folder" in err
            or "attempt to write a readonly database" in err), err


def test_a_read_only_connection_never_creates_a_store(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="there is no file"):
        DBConnection(f"sqlite:///{tmp_path / 'none.db'}", read_only=True).get_session_factory()
    assert list(tmp_path.iterdir()) == []


def test_a_read_only_connection_to_postgresql_reads_and_never_writes(db_url: str) -> None:
    if not db_url.startswith("postgresql"):
        pytest.skip("the SQLite cases are above")
    from hopkit.records import Corpus, Paragraph, Query
    from hopkit.store.store import Store

    Store.connect(db_url).add_corpus(Corpus("toy", (Paragraph(0, "Tarsk", "Tarsk is a port."),),
                                            (Query("q0", "Where?", ("Tarsk",)),)))
    reading = Store(DBConnection(db_url, read_only=True).get_session_factory())
    assert reading.datasets() == ["toy"]
    with pytest.raises(StoreError, match="read-only transaction"):
        reading.add_corpus(Corpus("other", (Paragraph(0, "Orl", "The Orl is a river."),),
                                  (Query("q0", "Which river?", ("Orl",)),)))
