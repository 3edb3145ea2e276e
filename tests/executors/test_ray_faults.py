"""The third probe's Ray failures (issue 48): a run without an address joined whatever cluster was last
started on the machine, and a stopped worker held its question for good. A real two-node cluster on
127.0.0.1 (the session's ``ray_cluster``), real worker processes, a loopback model server."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from hopkit.executors.ray_actors import RayExecutor
from hopkit.llm.testing_server import Fault, serve_fake_openai
from hopkit.pipelines.base import database_url
from hopkit.pipelines.generation.registered import method_pipeline
from hopkit.records import Corpus, Paragraph, Query
from hopkit.runner import run_with
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

QUESTION = re.compile(r"Where was person (\d+) born\?")


def town_of(prompt: str) -> str:
    numbers = QUESTION.findall(prompt)
    return f"Ville{numbers[-1]}" if numbers else "Nowhere"


def toy_store(url: str, count: int) -> Store:
    store = Store(DBConnection(url).get_session_factory())
    queries = tuple(Query(id=f"q{i}", text=f"Where was person {i} born?", answers=(f"Ville{i}",)) for i in range(count))
    store.add_corpus(Corpus("toy", (Paragraph(0, "Ville0", "Ville0 is a town."),), queries))
    return store


def drivers_of(pid: int) -> list[dict[str, Any]]:
    """The jobs of the session's cluster whose driver is process ``pid`` (a process that joined it)."""
    from ray._private import state

    return [job for job in state.jobs() if job.get("DriverPid") == pid]


def test_a_run_without_an_address_starts_a_private_cluster_not_the_one_running(
        ray_cluster: Any, tmp_path: Path) -> None:
    """Item 1: `ray.init()` with no address joined the cluster Ray's shared temp folder named, possibly
    another user's, and handed it the run's variables and store URL. The session's cluster, started with
    `ray start --head`, is that cluster here."""
    url = f"sqlite:///{tmp_path / 'hopkit.db'}"
    toy_store(url, 3)
    with serve_fake_openai(town_of) as server:
        env = {**os.environ, "OPENAI_BASE_URL": server.base_url, "HOPKIT_OPENAI_MODEL": "fake-model",
               "HOPKIT_HOME": str(tmp_path / "home"), "OPENAI_API_KEY": "sk-not-for-others",
               "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
        process = subprocess.Popen(
            [sys.executable, "-m", "hopkit.cli", "--db", url, "run", "nor", "--llm", "openai-compatible",
             "--dataset", "toy", "--executor", "ray", "--workers", "1", "--cpus-per-worker", "0.5", "--quiet"],
            env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            out, err = process.communicate(timeout=300)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    assert process.returncode == 0, err
    assert "3 answered now, 0 failed" in out
    assert drivers_of(process.pid) == [], "the run joined the cluster already running on the machine"
    assert not list(Path("/tmp").glob(f"hopkit-ray-*/session_*/logs/*{process.pid}*"))  # its folder is gone


def test_a_run_that_joins_a_cluster_says_which_and_what_its_workers_get(
        ray_cluster: Any, db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    if db_url.startswith("sqlite"):
        pytest.skip("PostgreSQL: the cluster has two nodes")
    store = toy_store(db_url, 2)
    pipeline = method_pipeline("nor")(store._factory, "nor-ray", "openai-compatible", dataset="toy")
    with serve_fake_openai(town_of) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("HOPKIT_OPENAI_MODEL", "fake-model")
        monkeypatch.setenv("HOPKIT_HOME", str(tmp_path / "home"))
        monkeypatch.setenv("OPENAI_API_KEY", "sk-kept-here")
        executor = RayExecutor(pipeline.method_spec(), database_url(store._factory), address=ray_cluster.address,
                               workers=1, cpus_per_worker=0.5, forward_env=["HOPKIT_*", "OPENAI_BASE_URL"])
        outcome = run_with(executor, store.queries("toy"), store, pipeline.run_spec(), progress=False)
    assert (outcome.finished, outcome.failed) == (2, 0)
    (notice,) = [r.getMessage() for r in caplog.records if r.getMessage().startswith("joined the Ray cluster")]
    assert ray_cluster.address in notice and "2 node(s)" in notice
    assert "HOPKIT_HOME" in notice and "OPENAI_BASE_URL" in notice and "OPENAI_API_KEY" not in notice
    assert "***" in notice or "@" not in notice  # the store's password is masked


def test_a_stopped_worker_is_replaced_and_its_question_handed_on(ray_cluster: Any, db_url: str, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    """Item 8: a worker stopped with SIGSTOP (as a hung native call) was never timed out."""
    if db_url.startswith("sqlite"):
        pytest.skip("PostgreSQL: the cluster has two nodes")
    store = toy_store(db_url, 10)
    pipeline = method_pipeline("nor")(store._factory, "nor-ray", "openai-compatible", dataset="toy")
    executor: RayExecutor | None = None
    stopped: list[int] = []
    lock = threading.Lock()

    def stop_one_worker(number: int, prompt: str) -> Fault:
        with lock:
            if number == 4 and executor is not None and executor.started:
                stopped.append(executor.started[0]["pid"])
                os.kill(stopped[0], signal.SIGSTOP)  # whichever question it is on, it never answers
        return Fault("delay", seconds=0.3)

    def let_it_go_after(seconds: float) -> None:  # before the fix the run waited for ever: end the test
        time.sleep(seconds)
        for pid in stopped:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass

    threading.Thread(target=let_it_go_after, args=(90,), daemon=True).start()
    with serve_fake_openai(town_of, faults=stop_one_worker) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("HOPKIT_OPENAI_MODEL", "fake-model")
        monkeypatch.setenv("HOPKIT_HOME", str(tmp_path / "home"))
        executor = RayExecutor(pipeline.method_spec(), database_url(store._factory), address=ray_cluster.address,
                               workers=3, cpus_per_worker=0.5, question_timeout=8)
        started = time.monotonic()
        outcome = run_with(executor, store.queries("toy"), store, pipeline.run_spec(), progress=False)
        seconds = time.monotonic() - started
    assert stopped, "no worker was stopped"
    assert (outcome.finished, outcome.failed) == (10, 0)
    assert seconds < 60, f"the run waited {seconds:.0f} s on the stopped worker"
    silent = [r.getMessage() for r in caplog.records if "answered nothing for" in r.getMessage()]
    assert len(silent) == 1, silent
    deadline = time.monotonic() + 30
    while True:  # the stopped process was killed, not left behind
        try:
            os.kill(stopped[0], 0)
        except ProcessLookupError:
            break
        assert time.monotonic() < deadline, f"the stopped worker {stopped[0]} is still there"
        time.sleep(0.5)
