"""A command pointed at a SQLite file that does not exist creates nothing (issue 70, failure 10).

Before the fix ``hopkit --db sqlite:///no/such/dir/x.db runs`` exited 0 with "no runs stored yet" and left the
folders and a new 80 KB database behind: a typo in ``--db`` made a second, empty store. Now every command that
needs what a store holds (the reading ones, and run, index, judge, delete, calibrate, sweep, train-router) says
there is no store at that path, exit 2, and the folder is as it was; ``ingest`` and ``import`` still start one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .running import hopkit

pytestmark = pytest.mark.unit

COMMANDS = ["runs", "datasets", "evaluate", "report", "compare a b", "export a --out runs.jsonl", "claims ircot",
            "delete a", "judge a", "index", "run nor", "calibrate migres", "sweep nor --datasets d",
            "train-router --datasets d --out router.npz"]


def everything_under(folder: Path) -> set[Path]:
    return set(folder.rglob("*"))


@pytest.mark.parametrize("command", COMMANDS)
def test_a_command_on_a_missing_sqlite_file_creates_nothing(command: str, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOPKIT_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("HOPKIT_DB_URL", raising=False)
    before = everything_under(tmp_path)
    code, out, err = hopkit(capsys, "--db", "sqlite:///no/such/dir/x.db", *command.split())
    assert code == 2, (out, err)
    assert err == ("hopkit: error: no hopkit store at no/such/dir/x.db: the file does not exist (nothing was "
                   "created); check --db, HOPKIT_DB_URL or HOPKIT_HOME, or start a store there with `hopkit "
                   "ingest`\n"), err
    assert everything_under(tmp_path) == before


@pytest.mark.parametrize("command", ["runs", "datasets", "evaluate"])
def test_the_default_store_is_not_created_by_a_reading_command(command: str, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("HOPKIT_HOME", raising=False)
    monkeypatch.delenv("HOPKIT_DB_URL", raising=False)
    code, _, err = hopkit(capsys, command)
    assert code == 2 and f"no hopkit store at {tmp_path / '.hopkit' / 'hopkit.db'}: " in err, err
    assert list(tmp_path.iterdir()) == []


def test_ingest_still_starts_a_store_and_then_the_reading_commands_read_it(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOPKIT_HOME", str(tmp_path / "home"))
    db = f"sqlite:///{tmp_path / 'new' / 'folder' / 'x.db'}"
    assert hopkit(capsys, "--db", db, "ingest", "sample", "--limit", "2")[0] == 0
    code, out, _ = hopkit(capsys, "--db", db, "runs")
    assert code == 0 and out.startswith("no runs stored yet")
