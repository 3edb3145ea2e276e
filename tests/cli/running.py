"""``hopkit`` run in the test's process, with what it printed."""

from __future__ import annotations

import pytest

from hopkit.cli import main


def hopkit(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The exit code, stdout and stderr of ``hopkit ARGS``."""
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


class StoreCli:
    """``hopkit --db URL ...`` run in the test's process: (exit code, stdout, stderr), or stdout of a command
    that must succeed."""

    def __init__(self, db: str, capsys: pytest.CaptureFixture[str]) -> None:
        self.db, self.capsys = db, capsys

    def __call__(self, *args: str) -> tuple[int, str, str]:
        return hopkit(self.capsys, "--db", self.db, *args)

    def ok(self, *args: str) -> str:
        code, out, err = self(*args)
        assert code == 0, err
        return out
