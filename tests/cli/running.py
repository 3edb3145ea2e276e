"""``hopkit`` run in the test's process, with what it printed."""

from __future__ import annotations

import pytest

from hopkit.cli import main


def hopkit(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The exit code, stdout and stderr of ``hopkit ARGS``."""
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err
