"""A model whose replies hold a NUL or a lone surrogate, on SQLite and on PostgreSQL.

PostgreSQL text cannot hold U+0000, and no UTF-8 column can hold a lone surrogate: a
reply with either stopped a run on PostgreSQL at that question, on every rerun. Each is
now stored as U+FFFD on both databases, and a result the store refuses for any other
reason fails its question alone. The model is a loopback OpenAI-compatible server, the
rest is real (CLI, HTTP backend, runner, store).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from hopkit.cli import main
from hopkit.errors import StoreError
from hopkit.llm.testing_server import serve_fake_openai
from hopkit.records import Corpus, GenerationResult, Paragraph, Query
from hopkit.pipelines.runner import run_method
from hopkit.store.connection import DBConnection
from hopkit.store.records import RunSpec
from hopkit.store.store import Store

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "src" / "hopkit" / "quickstart" / "sample.jsonl"
PIPELINES = ROOT / "src" / "hopkit" / "configs" / "pipelines"


@pytest.fixture()
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOPKIT_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("HOPKIT_DB_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def hopkit(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def serving(monkeypatch: pytest.MonkeyPatch, reply: str) -> Iterator[object]:
    with serve_fake_openai(lambda prompt: reply) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        yield server


@pytest.mark.parametrize("reply, stored", [("Caddow\x00Cross", "Caddow\ufffdCross"),
                                           ("Caddow\ud800Cross", "Caddow\ufffdCross")])
def test_a_reply_with_a_nul_or_a_lone_surrogate_is_stored_on_both_databases(
        db_url: str, workdir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        reply: str, stored: str) -> None:
    """Issue 28 item 1: `hopkit run` exited 2 at the first such reply on PostgreSQL, and every rerun too."""
    code, _, err = hopkit(capsys, "--db", db_url, "ingest", "jsonl", str(SAMPLE), "--name", "toy", "--limit", "3")
    assert code == 0, err
    for _server in serving(monkeypatch, reply):
        code, text, err = hopkit(capsys, "--db", db_url, "run", str(PIPELINES / "nor.yaml"),
                                 "--llm", "openai-compatible", "--quiet")
        assert code == 0, err
        assert "3 answered now, 0 failed" in text
        code, text, err = hopkit(capsys, "--db", db_url, "run", str(PIPELINES / "nor.yaml"),
                                 "--llm", "openai-compatible", "--quiet")
        assert code == 0 and "3 already done" in text, err
    store = Store.connect(db_url)
    (run,) = store.runs()
    assert [r.prediction for r in store.results(run.run_id)] == [stored] * 3
    code, text, err = hopkit(capsys, "--db", db_url, "evaluate")
    assert code == 0, err


def test_a_sqlite_export_with_a_nul_imports_into_postgresql(postgres_url: str, db_url: str, workdir: Path,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 28 item 1: the README's move from SQLite to PostgreSQL stopped half-way at such a reply."""
    if not db_url.startswith("postgresql"):
        pytest.skip("the target of this move is PostgreSQL")
    lite = f"sqlite:///{workdir / 'laptop.db'}"
    for url in (lite, db_url):
        code, _, err = hopkit(capsys, "--db", url, "ingest", "jsonl", str(SAMPLE), "--name", "toy", "--limit", "3")
        assert code == 0, err
    source = Store.connect(lite)
    run_id = source.ensure_run(RunSpec("nor", "nor", "toy", {"llm": "x"})).run_id
    from hopkit.store.records import QueryResult

    for query in source.queries("toy"):
        source.record_result(run_id, QueryResult(query.id, "Caddow\x00Cross", trace={"raw": "a\x00b"}))
    code, _, err = hopkit(capsys, "--db", lite, "export", "nor", "--out", str(workdir / "runs.jsonl.gz"))
    assert code == 0, err
    code, text, err = hopkit(capsys, "--db", db_url, "import", str(workdir / "runs.jsonl.gz"))
    assert code == 0 and "3 result(s) added" in text, err
    results = Store.connect(db_url).results(run_id)
    assert [(r.prediction, r.trace["raw"]) for r in results] == [("Caddow\ufffdCross", "a\ufffdb")] * 3


class NonIntegerIds:
    """A user's method that reports a paragraph id the store cannot hold for one question."""

    name = "bad-ids"

    def generate(self, query: Query) -> GenerationResult:
        return GenerationResult(text="Tarsk", chunk_ids=("not-an-id",) if query.id == "q1" else (1,))  # type: ignore[arg-type]


def test_a_result_the_store_refuses_fails_its_question_alone(db_url: str) -> None:
    """Issue 28 item 1: "a question that cannot be stored fails alone; the run goes on"."""
    store = Store(DBConnection(db_url).get_session_factory())
    queries = tuple(Query(f"q{i}", f"Question {i}?", ("Tarsk",)) for i in range(3))
    store.add_corpus(Corpus("toy", (Paragraph(1, "Tarsk", "Tarsk is a port."),), queries))
    outcome = run_method(NonIntegerIds(), queries, store, RunSpec("bad", "bad-ids", "toy", {}), progress=False)
    assert (outcome.finished, outcome.failed) == (2, 1)
    failed = {r.query_id: r.error for r in store.results(outcome.run_id) if r.error}
    assert list(failed) == ["q1"] and "StoreError" in failed["q1"] and "not-an-id" in failed["q1"]
    with pytest.raises(StoreError, match="unknown run"):
        store.record_result("no-such-run", store.results(outcome.run_id)[0])
