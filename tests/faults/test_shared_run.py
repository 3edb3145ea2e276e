"""Drivers that share a run share its questions (issue 48, item 7).

Two hosts running the same command on one PostgreSQL store both answered every question: 24
stored once, but 432 model calls instead of 216. Each question is now taken in the store
before it is answered; a question another driver holds is left to it, and taken again when
that driver dies. The drivers are real processes (`hopkit run`), the store PostgreSQL (or
SQLite), the model a loopback server.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from hopkit.executors.shared_questions import WAIT, SharedQuestions
from hopkit.llm.testing_server import Fault, serve_fake_openai
from hopkit.records import Corpus, Paragraph, Query
from hopkit.store.claims import Taken
from hopkit.store.connection import DBConnection
from hopkit.store.records import RunSpec
from hopkit.store.store import Store
from tests.polling import wait_until

pytestmark = pytest.mark.unit

QUESTION = re.compile(r"Where was person (\d+) born\?")
COUNT = 24


def town_of(prompt: str) -> str:
    numbers = QUESTION.findall(prompt)
    return f"Ville{numbers[-1]}" if numbers else "Nowhere"


def toy_store(url: str, count: int = COUNT) -> Store:
    store = Store(DBConnection(url).get_session_factory())
    queries = tuple(Query(f"q{i}", f"Where was person {i} born?", (f"Ville{i}",)) for i in range(count))
    store.add_corpus(Corpus("toy", (Paragraph(0, "Ville0", "Ville0 is a town."),), queries))
    return store


def driver(url: str, server_url: str, folder: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "OPENAI_BASE_URL": server_url, "HOPKIT_OPENAI_MODEL": "fake-model",
           "HOPKIT_HOME": str(folder / "home")}
    return subprocess.Popen([sys.executable, "-m", "hopkit.cli", "--db", url, "run", "nor", "--llm",
                             "openai-compatible", "--dataset", "toy", "--batch-size", "3", "--quiet"],
                            env=env, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def asked(requests: list) -> Counter[str]:
    """How often each question was asked (a request the killed driver never finished sending names none)."""
    return Counter(found[-1] for request in requests if (found := QUESTION.findall(request.prompt)))


def test_two_drivers_of_one_run_ask_each_question_once(db_url: str, tmp_path: Path) -> None:
    store = toy_store(db_url)
    with serve_fake_openai(town_of, faults=lambda n, p: Fault("delay", seconds=0.5)) as server:
        first, second = driver(db_url, server.base_url, tmp_path), driver(db_url, server.base_url, tmp_path)
        outputs = [process.communicate(timeout=300) for process in (first, second)]
        requests = list(server.requests)
    for process, (out, err) in zip((first, second), outputs):
        assert process.returncode == 0, err
    assert asked(requests) == Counter({str(i): 1 for i in range(COUNT)}), "a question was asked twice"
    (run,) = store.runs()
    results = store.results(run.run_id)
    assert sorted(r.query_id for r in results if r.error is None) == sorted(f"q{i}" for i in range(COUNT))
    assert store.claims.holders(run.run_id) == {}  # every question given back
    answered_now = [int(found.group(1)) for out, _ in outputs if (found := re.search(r"(\d+) answered now", out))]
    assert len(answered_now) == 2 and sum(answered_now) == COUNT and min(answered_now) > 0, outputs


def test_the_questions_of_a_driver_that_dies_are_taken_again(db_url: str, tmp_path: Path) -> None:
    store = toy_store(db_url)
    with serve_fake_openai(town_of, faults=lambda n, p: Fault("delay", seconds=0.3)) as server:
        doomed = driver(db_url, server.base_url, tmp_path)
        # the doomed driver is answering, with questions in flight
        wait_until(lambda: len(server.answered) >= 3 or doomed.poll() is not None, 120, "the first answers")
        assert doomed.poll() is None, doomed.communicate()
        survivor = driver(db_url, server.base_url, tmp_path)
        (run,) = store.runs()
        # both drivers hold questions: the survivor has joined the run before the other dies
        wait_until(lambda: len(set(store.claims.holders(run.run_id).values())) >= 2 or survivor.poll() is not None,
                   120, "the second driver to take a question")
        doomed.send_signal(signal.SIGKILL)
        doomed.wait()
        asked_before_the_kill = set(asked(list(server.requests)))
        out, err = survivor.communicate(timeout=300)
        requests = list(server.requests)
    assert survivor.returncode == 0, err
    (run,) = store.runs()
    assert sorted(r.query_id for r in store.results(run.run_id) if r.error is None) == sorted(
        f"q{i}" for i in range(COUNT))
    counts = asked(requests)
    assert set(counts) == {str(i) for i in range(COUNT)}
    # asked again: only questions the dead driver had asked and not stored, at most its 3 threads' requests in
    # flight and the answers they had handed on that its main thread had not yet written
    again = {question for question, times in counts.items() if times > 1}
    assert again <= asked_before_the_kill and len(again) <= 2 * 3 and max(counts.values()) <= 2, counts


def test_a_lease_that_runs_out_frees_the_question(tmp_path: Path) -> None:
    """A driver on another host that died renews nothing: its question is taken once its lease runs out."""
    store = toy_store(f"sqlite:///{tmp_path / 'hopkit.db'}", 2)
    run_id = store.ensure_run(RunSpec("nor", "nor", "toy", {})).run_id
    assert store.claims.take(run_id, "q0", "elsewhere:1:dead", 0.5)[0] is Taken.YES
    questions = SharedQuestions(store.queries("toy"), store.claims, run_id, look_again_seconds=0.1)
    try:
        assert questions.next().id == "q1"  # type: ignore[union-attr]
        assert questions.next() is WAIT  # q0 is the other host's for now
        taken: list[object] = []
        wait_until(lambda: taken.append(questions.next()) or taken[-1] is not WAIT, 30, "the lease to run out")
        assert taken[-1].id == "q0"  # type: ignore[attr-defined]
        assert questions.next() is None
    finally:
        questions.close()
    assert store.claims.holders(run_id) == {}


def test_the_next_questions_are_taken_before_the_taken_ones_run_out(tmp_path: Path) -> None:
    """Once half of those taken are handed out, the next ones are taken: workers seldom wait for the store."""
    store = toy_store(f"sqlite:///{tmp_path / 'hopkit.db'}", 20)
    run_id = store.ensure_run(RunSpec("nor", "nor", "toy", {})).run_id
    questions = SharedQuestions(store.queries("toy"), store.claims, run_id, take_at_once=4)
    try:
        handed = [questions.next().id for _ in range(2)]  # type: ignore[union-attr]
        assert len(store.claims.holders(run_id)) == 4  # 2 left of the first 4: more than half
        handed.append(questions.next().id)  # type: ignore[union-attr]
        assert len(store.claims.holders(run_id)) == 8  # half handed out: the next 4 taken with it
        while (query := questions.next()) is not None:
            handed.append(query.id)  # type: ignore[union-attr]
        assert handed == [f"q{i}" for i in range(20)]
    finally:
        questions.close()
    assert store.claims.holders(run_id) == {}
