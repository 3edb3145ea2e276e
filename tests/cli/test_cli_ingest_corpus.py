"""``hopkit ingest ... --corpus FILE``: questions retrieve from a corpus streamed in beside them."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from hopkit.store.store import Store

from .running import hopkit

pytestmark = pytest.mark.unit


def wiki_file(path: Path, count: int) -> Path:
    rows = [{"id": f"w{i}", "title": f"Town {i}", "text": f"Town {i} lies on river number {i}."} for i in range(count)]
    path.write_bytes(gzip.compress("".join(json.dumps(row) + "\n" for row in rows).encode()))
    return path


def test_ingest_with_a_corpus_then_run(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wiki = wiki_file(tmp_path / "wiki.jsonl.gz", 300)
    code, out, err = hopkit(capsys, "--db", db, "ingest", "sample", "--limit", "2", "--corpus", str(wiki))
    assert code == 0, err
    own = len(Store.connect(db).paragraphs("sample")) - 300
    assert out.startswith(f"ingested sample: 2 questions, {own} paragraphs in the pooled corpus and 300 from --corpus")
    code, out, _ = hopkit(capsys, "--db", db, "datasets")
    assert out.strip() == f"sample: 2 questions, {own + 300} paragraphs"

    llm = tmp_path / "scripted.yaml"
    llm.write_text('_target_: hopkit.llm.fake.ScriptedLLM\nscript: ["Velmora", "Velmora"]\n', encoding="utf-8")
    code, out, err = hopkit(capsys, "--db", db, "run", "oner", "--llm", str(llm), "--quiet")
    assert code == 0 and "2 answered now, 0 failed" in out, err


def test_a_bad_corpus_stores_nothing(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"title": "Fine", "text": "fine"}\n{"title": "No text"}\n', encoding="utf-8")
    code, _, err = hopkit(capsys, "--db", db, "ingest", "sample", "--corpus", str(broken))
    assert code == 2 and f"{broken}:2" in err and "no paragraph text" in err
    code, _, err = hopkit(capsys, "--db", db, "ingest", "sample", "--corpus", str(tmp_path / "absent"))
    assert code == 2 and "no such corpus file or folder" in err
    assert Store.connect(db).datasets() == []
