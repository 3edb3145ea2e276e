"""What ``hopkit`` says and exits with when things go wrong: failed runs, Ctrl-C, empty files, ``--db``.

The model is a loopback OpenAI-compatible server (the real HTTP backend talks to it);
the store is a real SQLite file.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Iterator

import pytest

from hopkit.llm.testing_server import FakeOpenAIServer, Fault, serve_fake_openai
from hopkit.store.store import Store

from .running import hopkit

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "src" / "hopkit" / "quickstart" / "sample.jsonl"
NOR = ROOT / "src" / "hopkit" / "configs" / "pipelines" / "nor.yaml"




@pytest.fixture()
def ingested(db: str, capsys: pytest.CaptureFixture[str]) -> str:
    code, _, err = hopkit(capsys, "--db", db, "ingest", "jsonl", str(SAMPLE), "--name", "toy", "--limit", "3")
    assert code == 0, err
    return db


def serve_with_faults(monkeypatch: pytest.MonkeyPatch, faults: object) -> Iterator[FakeOpenAIServer]:
    with serve_fake_openai(lambda prompt: "Caddow Cross", faults=faults) as server:  # type: ignore[arg-type]
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        yield server


def test_db_is_accepted_before_and_after_the_subcommand(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue item 11: `hopkit ingest ... --db URL` was an argparse error though the README says every command takes it."""
    code, _, err = hopkit(capsys, "ingest", "jsonl", str(SAMPLE), "--limit", "2", "--db", db)
    assert code == 0, err
    code, text, err = hopkit(capsys, "datasets", "--db", db)
    assert code == 0 and text.startswith("jsonl: 2 questions"), err
    code, text, _ = hopkit(capsys, "--db", db, "datasets")
    assert text.startswith("jsonl: 2 questions")


def test_an_empty_dataset_file_is_refused_and_the_name_stays_free(db: str, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Issue item 11: an empty file was ingested as an empty dataset, which then blocked the real one."""
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    code, _, err = hopkit(capsys, "--db", db, "ingest", "jsonl", str(empty), "--name", "toy")
    assert code == 2 and f"{empty}: no questions" in err
    code, text, err = hopkit(capsys, "--db", db, "ingest", "jsonl", str(SAMPLE), "--name", "toy", "--limit", "2")
    assert code == 0 and "ingested toy: 2 questions" in text, err


def test_a_run_where_every_question_failed_exits_1_and_says_why(ingested: str, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Issue item 11: a run where every question failed exited 0."""
    for _server in serve_with_faults(monkeypatch, lambda number, prompt: Fault("null")):
        code, text, err = hopkit(capsys, "--db", ingested, "run", str(NOR), "--llm", "openai-compatible", "--quiet")
    assert code == 1
    assert "3 questions, 0 already done, 0 answered now, 3 failed" in text
    assert "nothing was answered: all 3 question(s) attempted failed: 3 LLMError" in err
    assert "answered with no text" in err and "a rerun of the same command retries it" in err
    assert err.count("answered with no text") == 1  # not each question's warning as well


def test_a_run_where_some_questions_failed_exits_0_with_a_warning(ingested: str, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    def filter_one(number: int, prompt: str) -> Fault | None:
        return Fault("content_filter") if number == 1 else None  # not retried: one question fails

    for _server in serve_with_faults(monkeypatch, filter_one):
        code, text, err = hopkit(capsys, "--db", ingested, "run", str(NOR), "--llm", "openai-compatible", "--quiet")
    assert code == 0
    assert "2 answered now, 1 failed" in text
    assert "1 of 3 question(s) attempted failed" in err and "content_filter" in err
    runs = Store.connect(ingested).runs()
    assert [(run.finished, run.failed) for run in runs] == [(2, 1)]


def test_a_request_the_server_refuses_is_not_called_retryable(ingested: str, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 70: a prompt of 1.6M tokens, refused by the server with HTTP 400, was called retryable."""
    for server in serve_with_faults(monkeypatch, lambda number, prompt: Fault("status", status=400)):
        code, text, err = hopkit(capsys, "--db", ingested, "run", str(NOR), "--llm", "openai-compatible", "--quiet")
        assert code == 1 and "3 failed" in text
        assert "3 RequestRefusedError (the model server refused the request" in err, err
        assert "a rerun of the same command retries it" not in err
        sent = len(server.requests)
        code, text, err = hopkit(capsys, "--db", ingested, "run", str(NOR), "--llm", "openai-compatible",
                                 "--keep-failed", "--quiet")
        assert "3 already done" in text, err
        assert len(server.requests) == sent == 3  # refused once each, neither retried nor asked again


# Sends itself SIGINT (a real Ctrl-C) when the store is first opened, i.e. in the middle of the ingest.
INGEST_INTERRUPTED = textwrap.dedent("""
    import os, signal, sys
    from hopkit.cli import main

    signal.signal(signal.SIGINT, signal.default_int_handler)  # a background test run inherits "ignore"
    sent = []

    def hook(event, args):
        if event == "sqlite3.connect" and not sent:
            sent.append(True)
            os.kill(os.getpid(), signal.SIGINT)

    sys.addaudithook(hook)
    raise SystemExit(main(sys.argv[1:]))
""")


def test_ctrl_c_during_ingest_says_nothing_was_stored(db: str, tmp_path: Path) -> None:
    """Issue item 11: Ctrl-C during ingest said "finished questions are stored"."""
    process = subprocess.run([sys.executable, "-c", INGEST_INTERRUPTED, "--db", db, "ingest", "jsonl", str(SAMPLE)],
                             capture_output=True, text=True, timeout=120, env={**os.environ}, cwd=tmp_path)
    assert process.returncode == 130, process.stderr
    assert "interrupted; nothing was stored (an ingest is all-or-nothing)" in process.stderr
    assert "finished questions" not in process.stderr
    assert Store.connect(db).datasets() == []
