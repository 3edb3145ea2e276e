"""The working folder most command-line tests start from."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture()
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A new SQLite store's URL, with the test's folder as the current one and HOPKIT_HOME in it."""
    monkeypatch.setenv("HOPKIT_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("HOPKIT_DB_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    return f"sqlite:///{tmp_path / 'hopkit.db'}"
