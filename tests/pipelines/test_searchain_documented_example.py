"""docs/searchain.md's Python example, run as the page prints it, with SmolLM2 for Qwen.

The code is read from the page, so the page cannot drift from the facade: a renamed
option or metadata key fails here. The store is a real SQLite file, the retriever the
real BM25 index and the model the real SmolLM2 GGUF; a 135M model answers badly (a
question it writes no answer to is a failed question), which is not what this checks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hopkit.store.connection import DBConnection
from hopkit.store.store import Store

from .documented_pages import (
    DOCS,
    PAGE_MODEL,
    PARAGRAPHS,
    python_example,
    run_example,
)

pytestmark = [pytest.mark.integration, pytest.mark.slow]

PAGE = DOCS / "searchain.md"
BUILDS = "SearChainGenerationPipeline("


def test_the_page_names_the_model_the_test_replaces() -> None:
    assert PAGE_MODEL in python_example(PAGE, BUILDS)


def test_the_documented_python_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOPKIT_DB_URL", f"sqlite:///{tmp_path / 'hopkit.db'}")
    monkeypatch.setenv("HOPKIT_HOME", str(tmp_path / "home"))
    namespace, printed = run_example(PAGE, BUILDS)
    results, result = namespace["results"], namespace["result"]
    assert results["total_queries"] == 2 and results["finished"] + results["failed"] == 2
    assert printed.startswith(f"{results['finished']} answered, {results['failed']} failed\n")
    assert isinstance(result.text, str) and 1 <= result.metadata["rounds"] <= 5
    assert result.metadata["stop_reason"] in ("finished", "max_rounds", "unreadable")
    assert set(result.chunk_ids) <= {p.id for p in PARAGRAPHS}

    again = namespace["pipeline"].run(limit=30)
    assert again["already_done"] == results["finished"] and again["run_id"] == results["run_id"]
    spec = Store(DBConnection.from_config().get_session_factory()).run(again["run_id"])
    assert spec.config["method"]["confidence_threshold"] == 1.8 and spec.config["method"]["max_rounds"] == 5
