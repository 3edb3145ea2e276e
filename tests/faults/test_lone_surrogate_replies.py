"""A reply holding a lone surrogate, fed into the next prompt of a multi-step method (issue 48, item 5).

A server's JSON may carry ``"\\ud800"``: decoded, it is a lone surrogate that no UTF-8 encoder
takes, so the HTTP client failed the next call of every multi-step method with a bare
``UnicodeEncodeError`` (and the summary called it retryable). Model text is now made
encodable where it enters hopkit. Real CLI, HTTP backend, BM25 index, runner and store; the
model is a loopback server.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hopkit.cli import main
from hopkit.llm.protocol import Completion, TokenScores
from hopkit.llm.testing_server import serve_fake_openai
from hopkit.store.store import Store

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "src" / "hopkit" / "quickstart" / "sample.jsonl"
REPLY = "Caddow\ud800Cross is where it is. So the answer is: Caddow\ud800Cross."


@pytest.mark.parametrize("method", ["ircot", "self-ask", "react-shao", "searchain"])
def test_a_multi_step_method_takes_a_reply_with_a_lone_surrogate_into_its_next_prompt(
        method: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOPKIT_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("HOPKIT_DB_URL", raising=False)
    assert main(["ingest", "jsonl", str(SAMPLE), "--name", "toy", "--limit", "2"]) == 0
    with serve_fake_openai(lambda prompt: REPLY) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        code = main(["run", method, "--llm", "openai-compatible", "--quiet"])
        later_prompts = [request.prompt for request in server.requests[1:]]
    err = capsys.readouterr().err
    assert "UnicodeEncodeError" not in err, err
    assert code == 0, err
    assert any("Caddow\ufffdCross" in prompt for prompt in later_prompts)  # the reply went on, cleaned
    (run,) = Store.connect(None).runs()
    errors = [r.error for r in Store.connect(None).results(run.run_id) if r.error]
    assert not any("UnicodeEncodeError" in error for error in errors), errors


def test_every_backend_hands_on_encodable_text() -> None:
    """The cleaning is in the records every backend returns, not in one backend."""
    completion = Completion("a\ud800b\x00c", prompt_tokens=1, completion_tokens=1, seconds=0.0)
    assert completion.text == "a\ufffdb\ufffdc"
    completion.text.encode("utf-8")
    paired = Completion("\ud83d\ude00", prompt_tokens=1, completion_tokens=1, seconds=0.0)
    assert paired.text == "\U0001F600"  # two surrogates of a pair are the character they encode
    tokens = TokenScores(("x\udfff",), (-0.1,), prompt_tokens=1, seconds=0.0)
    assert tokens.tokens == ("x\ufffd",)


def test_every_backend_hands_on_valid_token_log_probabilities() -> None:
    """A server's JSON may hold NaN or a positive number as a log-probability: FLARE overflowed on 1e308."""
    import math

    tokens = TokenScores(("a", "b", "c", "d"), (1e308, math.nan, -0.5, 710.0), prompt_tokens=1, seconds=0.0)
    assert tokens.logprobs == (0.0, -math.inf, -0.5, 0.0)
    assert tokens.probabilities == (1.0, 0.0, math.exp(-0.5), 1.0)
