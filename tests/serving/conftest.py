from __future__ import annotations

from pathlib import Path

import pytest

from hopkit.serving.served import ServedRetriever
from tests.serving.loopback import sample_store, served_sample


@pytest.fixture
def store_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A store of the sample's first questions, the indexes in the test's own HOPKIT_HOME."""
    monkeypatch.setenv("HOPKIT_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("HOPKIT_RETRIEVAL_TOKEN", raising=False)
    monkeypatch.chdir(tmp_path)
    return sample_store(tmp_path)


@pytest.fixture
def bm25(store_url: str) -> ServedRetriever:
    return served_sample(store_url)
