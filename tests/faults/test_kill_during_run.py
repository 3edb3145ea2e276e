"""``kill -9`` of a multi-worker run at random (seeded) moments loses no answer the runner had received.

A subprocess runs NoR with four workers against the loopback server, which answers
each question after a different delay (question 0 much later than the rest) and logs
the moment it finished sending each answer. The test SIGKILLs the process at a random
moment and then checks, against the server's log:

* every question is stored at most once, and every answer stored is the one sent;
* every answer the server finished sending more than ``GRACE`` seconds before the
  kill is stored (an answer that arrived just before the kill may legitimately be
  lost: it was still between the socket and the store);
* a resume in-process answers exactly the questions not stored, and then every
  question is stored exactly once.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from typing import Any

import pytest

from hopkit.llm.openai_compat import OpenAICompatibleLLM
from hopkit.llm.testing_server import Fault, serve_fake_openai
from hopkit.methods.nor.method import NoR
from hopkit.pipelines.runner import run_method

pytestmark = pytest.mark.unit

QUESTIONS = 24
WORKERS = 4
SLOW_SECONDS = 3.0  # question 0: every finished answer used to queue behind it
GRACE = 0.75  # seconds between an answer's last byte and the moment it must be in the store
SEEDS = (1, 2, 3)

RUN = textwrap.dedent("""
    import sys
    from hopkit.llm.openai_compat import OpenAICompatibleLLM
    from hopkit.methods.nor.method import NoR
    from hopkit.pipelines.runner import run_method
    from hopkit.store.connection import DBConnection
    from hopkit.store.records import RunSpec
    from hopkit.store.store import Store

    base_url, db_url = sys.argv[1], sys.argv[2]
    store = Store(DBConnection(db_url).get_session_factory())
    spec = RunSpec(name="nor-faults", method="nor", dataset="toy", config={"suite": "faults"})
    llm = OpenAICompatibleLLM(base_url, "fake-model", timeout=30, max_retries=0)
    run_method(NoR(llm), store.queries("toy"), store, spec, workers=%d, progress=False)
""" % WORKERS)


@pytest.mark.parametrize("seed", SEEDS)
def test_kill_9_at_a_random_moment_keeps_every_received_answer_once(toy: Any, seed: int) -> None:
    """Issue item 3: with results taken in submission order, answers behind question 0 were lost."""
    rng = random.Random(seed)
    store, url = toy.store(QUESTIONS)
    spec = toy.spec()
    delays = {n: SLOW_SECONDS if n == 0 else rng.uniform(0.1, 0.5) for n in range(QUESTIONS)}

    def schedule(number: int, prompt: str) -> Fault | None:
        return Fault("delay", seconds=delays[toy.question_number(prompt)])

    with serve_fake_openai(toy.town_of, faults=schedule) as server:
        process = subprocess.Popen([sys.executable, "-c", RUN, server.base_url, url], env={**os.environ})
        try:
            deadline = time.monotonic() + 60
            while not server.requests and time.monotonic() < deadline and process.poll() is None:
                time.sleep(0.01)
            assert server.requests, f"the run never reached the server (exit code {process.poll()})"
            time.sleep(rng.uniform(1.0, 2.4))  # question 0 is still in flight, many others answered
            killed_at = time.monotonic()
            process.send_signal(signal.SIGKILL)
            process.wait(10)
        finally:
            if process.poll() is None:
                process.kill()
        answered = list(server.answered)

        stored = store.results(spec.run_id)
        toy.check(stored)
        sent = {toy.question_number(a.prompt): a for a in answered}
        by_id = {r.query_id: r for r in stored}
        for result in stored:  # nothing stored that the server did not send
            assert result.error is None and result.prediction == sent[int(result.query_id[1:])].text
        due = sorted(n for n, a in sent.items() if a.sent_at < killed_at - GRACE)
        assert due, "the kill came before any answer was due: the test checked nothing"
        missing = [f"q{n}" for n in due if f"q{n}" not in by_id]
        assert not missing, (f"answers sent over {GRACE}s before the kill were not stored: {missing} "
                             f"(stored: {sorted(by_id)})")

        asked_before = len(server.requests)
        server.faults = ()  # healthy and fast for the resume
        llm = OpenAICompatibleLLM(server.base_url, "fake-model", timeout=30, max_retries=0)
        outcome = run_method(NoR(llm), store.queries("toy"), store, spec, workers=WORKERS, progress=False)
        resumed = sorted(toy.question_number(r.prompt) for r in server.requests[asked_before:])
    assert resumed == sorted(n for n in range(QUESTIONS) if f"q{n}" not in by_id)  # no finished one redone
    assert (outcome.already_done, outcome.failed) == (len(by_id), 0)
    final = store.results(spec.run_id)
    toy.check(final)
    assert sorted(r.query_id for r in final if r.error is None) == sorted(f"q{n}" for n in range(QUESTIONS))
