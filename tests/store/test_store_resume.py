"""A run killed with SIGKILL midway keeps every finished question and resumes cleanly."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Callable

import pytest

import hopkit
from hopkit.records import Corpus
from hopkit.store import RunSpec, Store

pytestmark = pytest.mark.integration

WRITER = Path(__file__).with_name("store_resume_writer.py")
SEEN_BEFORE_KILL = 25
QUESTIONS = 5_000  # more than the writer gets to before it is killed: every result is of a dataset question


def _load_writer() -> ModuleType:
    module_spec = importlib.util.spec_from_file_location("store_resume_writer", WRITER)
    if module_spec is None or module_spec.loader is None:
        raise RuntimeError(f"cannot load {WRITER}")
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


def _run_writer_until_killed(url: str, run_id: str, stderr_path: Path) -> list[int]:
    """Start the writer, read SEEN_BEFORE_KILL committed indices, SIGKILL it."""
    env = dict(os.environ)
    src = str(Path(hopkit.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    seen: list[int] = []
    with stderr_path.open("w") as stderr:
        process = subprocess.Popen([sys.executable, str(WRITER), url, run_id],
                                   stdout=subprocess.PIPE, stderr=stderr, text=True, env=env)
        try:
            assert process.stdout is not None
            while len(seen) < SEEN_BEFORE_KILL:
                line = process.stdout.readline()
                if not line:
                    break
                seen.append(int(line))
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait()
            if process.stdout is not None:
                process.stdout.close()
    if len(seen) < SEEN_BEFORE_KILL:
        pytest.fail(f"the writer stopped early: {stderr_path.read_text()}")
    assert process.returncode == -signal.SIGKILL
    return seen


def test_killed_run_keeps_finished_results_and_resumes(
    store: Store, db_url: str, make_corpus: Callable[..., Corpus], tmp_path: Path,
) -> None:
    writer = _load_writer()
    store.add_corpus(make_corpus("toy", n_paragraphs=QUESTIONS + 1, n_queries=QUESTIONS))
    run_id = store.ensure_run(RunSpec("resume", "ircot", "toy", {"top_k": 2})).run_id

    seen = _run_writer_until_killed(db_url, run_id, tmp_path / "writer.err")
    assert seen == list(range(SEEN_BEFORE_KILL))

    # What survived: a prefix of the questions, each result complete and exact.
    stored = store.results(run_id)
    survived = len(stored)
    assert SEEN_BEFORE_KILL <= survived < QUESTIONS
    assert stored == [writer.expected_result(i) for i in range(survived)]
    expected_finished = {f"q{i}" for i in range(survived) if i % 4 != 3}
    assert store.finished_query_ids(run_id) == expected_finished
    info = store.find_runs(run_id)[0]
    assert (info.finished, info.failed) == (len(expected_finished), survived - len(expected_finished))

    # Resume: skip the finished ones, retry the failed ones and go a little further.
    target = survived + 5
    todo = [i for i in range(target) if f"q{i}" not in store.finished_query_ids(run_id)]
    assert all(i % 4 == 3 or i >= survived for i in todo)
    for i in todo:
        store.record_result(run_id, writer.expected_result(i, retried=True))
    # Recording the finished ones again changes nothing.
    for i in range(survived):
        if i % 4 != 3:
            store.record_result(run_id, writer.expected_result(i))

    final = {r.query_id: r for r in store.results(run_id)}
    assert len(final) == target
    assert all(r.error is None for r in final.values())
    assert final["q3"] == writer.expected_result(3, retried=True)
    assert final["q0"] == writer.expected_result(0)
    assert store.finished_query_ids(run_id) == {f"q{i}" for i in range(target)}
