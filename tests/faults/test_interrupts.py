"""Ctrl-C on a multi-worker run whose model server hangs: a prompt exit that keeps what finished."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from hopkit.llm.testing_server import Fault, serve_fake_openai
from hopkit.store.store import Store
from tests.polling import answers_stored, wait_until

pytestmark = pytest.mark.unit

NOR = Path(__file__).resolve().parents[2] / "src" / "hopkit" / "configs" / "pipelines" / "nor.yaml"
ANSWERED = (0, 1)  # the questions the server answers; it hangs on the others for a minute


def take_ctrl_c() -> None:
    """Undo an inherited "ignore SIGINT" (a test run started in the background has one), so
    the child's Python turns Ctrl-C into KeyboardInterrupt as in a terminal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def wait_for(condition: Any, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_ctrl_c_with_hanging_http_workers_exits_at_once_and_keeps_finished_answers(toy: Any,
                                                                                   tmp_path: Path) -> None:
    """Issue item 11: Ctrl-C waited for the HTTP requests in flight (up to the 60 s timeout) before exiting."""
    store, url = toy.store(6)

    def schedule(number: int, prompt: str) -> Fault | None:
        return None if toy.question_number(prompt) in ANSWERED else Fault("hang", seconds=60)

    with serve_fake_openai(toy.town_of, faults=schedule) as server:
        env = {**os.environ, "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "test-key",
               "HOPKIT_OPENAI_MODEL": "fake-model", "HOPKIT_HOME": str(tmp_path / "home")}
        env.pop("HOPKIT_DB_URL", None)
        process = subprocess.Popen(
            [sys.executable, "-m", "hopkit.cli", "--db", url, "run", str(NOR), "--llm", "openai-compatible",
             "--dataset", "toy", "--quiet"],
            env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            preexec_fn=take_ctrl_c)
        try:
            # every question asked (the NoR config runs 10 at once), two answered, four hanging
            assert wait_for(lambda: len(server.requests) >= 6 and len(server.answered) >= 2, 60), process.poll()
            wait_until(lambda: answers_stored(store) >= 2, 30, "the two answers stored")
            interrupted = time.monotonic()
            process.send_signal(signal.SIGINT)
            try:
                _, err = process.communicate(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                _, err = process.communicate()
                pytest.fail("hopkit run was still waiting for its hanging requests 15 s after Ctrl-C")
            took = time.monotonic() - interrupted
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    assert process.returncode == 130, err
    assert took < 5, f"exit took {took:.1f}s after Ctrl-C"
    assert "interrupted; finished questions are stored, rerun the same command to resume" in err
    run = Store.connect(url).runs()[0]
    stored = Store.connect(url).results(run.run_id)
    assert sorted(r.query_id for r in stored if r.error is None) == ["q0", "q1"]
    toy.check(stored)
