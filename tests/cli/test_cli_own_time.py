"""A run's summary says when hopkit's own work, not the model, took a noticeable share of the time."""

from __future__ import annotations

from pathlib import Path

import pytest

from hopkit.llm.testing_server import Fault, serve_fake_openai
from hopkit.pipelines.runner import RunOutcome

from .running import hopkit

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "src" / "hopkit" / "quickstart" / "sample.jsonl"
NOR = ROOT / "src" / "hopkit" / "configs" / "pipelines" / "nor.yaml"
NOTICE = "hopkit's own work (retrieval, prompts, parsing, traces, the store) took"


def run_against(server_delay: float, db: str, monkeypatch: pytest.MonkeyPatch,
                capsys: pytest.CaptureFixture[str]) -> str:
    code, _, err = hopkit(capsys, "--db", db, "ingest", "jsonl", str(SAMPLE), "--name", "toy", "--limit", "2")
    assert code == 0, err
    faults = (lambda number, prompt: Fault("delay", seconds=server_delay)) if server_delay else ()
    with serve_fake_openai(lambda prompt: "Caddow Cross", faults=faults) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        code, text, err = hopkit(capsys, "--db", db, "run", str(NOR), "--llm", "openai-compatible", "--quiet")
    assert code == 0 and "2 answered now, 0 failed" in text, err
    return text


def test_a_run_against_a_server_that_answers_at_once_is_paced_by_hopkit(db: str, monkeypatch: pytest.MonkeyPatch,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    text = run_against(0.0, db, monkeypatch, capsys)
    assert NOTICE in text and "more than 5%: the toolkit, not only the model, sets this run's pace" in text


def test_a_run_against_a_slow_model_says_nothing_of_hopkit(db: str, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert NOTICE not in run_against(1.0, db, monkeypatch, capsys)


def test_a_run_whose_time_went_to_a_failing_server_says_nothing_of_hopkit(
        db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Failed model calls were not model time: hopkit's own work "took 100%" of a run against a failing server."""
    code, _, err = hopkit(capsys, "--db", db, "ingest", "jsonl", str(SAMPLE), "--name", "toy", "--limit", "2")
    assert code == 0, err
    with serve_fake_openai(lambda prompt: "never sent", stall_first=2, stall_seconds=1.0) as server:
        llm = tmp_path / "failing.yaml"
        llm.write_text("_target_: hopkit.llm.openai_compat.OpenAICompatibleLLM\n"
                       f"base_url: {server.base_url}\nmodel: m\nmax_retries: 0\n", encoding="utf-8")
        code, text, err = hopkit(capsys, "--db", db, "run", str(NOR), "--llm", str(llm), "--quiet")
    assert code == 1 and "2 failed" in text and "LLMServerError" in err, err
    assert len(server.requests) == 2
    assert NOTICE not in text


def test_the_own_share_is_the_time_answering_outside_the_model() -> None:
    outcome = RunOutcome("r", 4, 0, 4, 0, answering_seconds=10.0, model_seconds=9.0)
    assert outcome.own_share == pytest.approx(0.1)
    assert RunOutcome("r", 0, 0, 0, 0).own_share == 0.0
