"""docs/migres.md's Python example, run as the page prints it, with SmolLM2 for Qwen.

The code is read from the page, so the page cannot drift from the facade: a renamed
option or metadata key fails here. The store is a real SQLite file, the retriever the
real BM25 index and the model the real SmolLM2 GGUF; a 135M model answers badly, which
is not what this checks.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Any

import pytest

from hopkit.records import Corpus, Paragraph, Query
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store

pytestmark = [pytest.mark.integration, pytest.mark.slow]

PAGE = Path(__file__).resolve().parents[2] / "docs" / "migres.md"
PARAGRAPHS = (
    Paragraph(0, "Velmora Ironworks", "Velmora Ironworks was founded by Ada Quill in 1871."),
    Paragraph(1, "Ada Quill", "Ada Quill was an engineer born in Tarsk."),
    Paragraph(2, "Tarsk", "Tarsk is a port city on the northern coast."),
    Paragraph(3, "Halvicke Glassworks", "Halvicke Glassworks was founded in Orlen by Maren Tolloway."),
)
QUERIES = (
    Query("q1", "Where was the founder of Velmora Ironworks born?", ("Tarsk",), gold_paragraph_ids=(0, 1)),
    Query("q2", "Who founded Halvicke Glassworks?", ("Maren Tolloway",), gold_paragraph_ids=(3,)),
)


def documented_example() -> str:
    """The page's one Python block that builds a MIGRESGenerationPipeline."""
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.DOTALL)
    [example] = [block for block in blocks if "MIGRESGenerationPipeline(" in block]
    return example


def test_the_page_names_the_model_the_test_replaces() -> None:
    assert 'llm="qwen2.5-coder-1.5b"' in documented_example()


def test_the_documented_python_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOPKIT_DB_URL", f"sqlite:///{tmp_path / 'hopkit.db'}")
    monkeypatch.setenv("HOPKIT_HOME", str(tmp_path / "home"))
    Store(DBConnection.from_config().get_session_factory()).add_corpus(Corpus("toy", PARAGRAPHS, QUERIES))
    code = documented_example().replace('llm="qwen2.5-coder-1.5b"', 'llm="smollm2"')
    namespace: dict[str, Any] = {}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, str(PAGE), "exec"), namespace)  # the page's own code, never model output

    results, result = namespace["results"], namespace["result"]
    assert (results["total_queries"], results["finished"], results["failed"]) == (2, 2, 0)
    assert printed.getvalue().startswith("2 answered, 0 failed\n")
    assert isinstance(result.text, str) and 1 <= result.metadata["iterations"] <= 5
    assert result.metadata["queries"][0] == QUERIES[0].text
    assert set(result.chunk_ids) <= {p.id for p in PARAGRAPHS}

    again = namespace["pipeline"].run(limit=30)
    assert (again["already_done"], again["finished"]) == (2, 0)
    stored = Store(DBConnection.from_config().get_session_factory())
    spec = stored.run(again["run_id"])
    assert spec.config["method"]["relevance_threshold"] == 1.09 and spec.config["method"]["rerank_top"] == 10
    assert spec.config["retrieval"]["options"] == {"b": 0.4, "k1": 0.9}
