"""A full disk under ``HOPKIT_HOME`` or an output folder (issue 70, failure 3): one line naming the path and saying
to free space, never Python's ``--- Logging error ---`` blocks or a traceback.

Before the fix, a full index folder gave a log file's ``--- Logging error ---`` blocks, four chained tracebacks
and exit 1; a full log file or LLM cache printed ``--- Logging error ---`` blocks at each record; a full report
folder said "choose a writable folder" and `claims --out` ended in a traceback. The store lives on a disk with
room (it has its own test in test_store_failures.py); ``HOPKIT_HOME`` or the output folder is on a real 640 KiB
tmpfs filled up (skipped where mounting is not allowed). The command runs as a process of its own, as a user
runs it, so its console and log file are the real ones.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hopkit.data.corpus import pool_corpus
from hopkit.data.registry import load_dataset
from hopkit.store.records import QueryResult, RunSpec
from hopkit.store.store import Store

from .small_disk import fill, small_disk  # noqa: F401 (small_disk: a fixture)

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "src" / "hopkit" / "quickstart" / "sample.jsonl"
LOGGING_ERROR = "--- Logging error ---"


def hopkit(home: Path, *args: str) -> tuple[int, str, str]:
    """``hopkit ARGS`` in a process of its own with ``HOPKIT_HOME=home``: exit code, stdout, stderr."""
    env = {**os.environ, "HOPKIT_HOME": str(home)}
    env.pop("HOPKIT_DB_URL", None)
    done = subprocess.run([sys.executable, "-m", "hopkit.cli", *args], capture_output=True, text=True, env=env,
                          timeout=300)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture()
def store(tmp_path: Path) -> str:
    """A store with the 'toy' dataset, on a disk with room."""
    db = f"sqlite:///{tmp_path / 'hopkit.db'}"
    Store.connect(db).add_corpus(pool_corpus("toy", load_dataset("jsonl", SAMPLE, limit=3)))
    return db


def scripted_llm(folder: Path, *, cache: bool = False) -> str:
    """An LLM config answering the three questions in turn, the second one with nothing (a failed question)."""
    path = folder / ("cached.yaml" if cache else "scripted.yaml")
    path.write_text("_target_: hopkit.llm.fake.ScriptedLLM\nscript: [Velmora, '', Tarn]\n"
                    + ("cache: true\n" if cache else ""), encoding="utf-8")
    return str(path)


def one_error_line(err: str) -> str:
    """The one ``hopkit: error:`` line of ``err``, which holds no traceback."""
    assert "Traceback" not in err and LOGGING_ERROR not in err, err
    errors = [line for line in err.splitlines() if line.startswith("hopkit: error:")]
    assert len(errors) == 1, err
    return errors[0]


@pytest.mark.parametrize("command", ["index --dataset toy", "run oner --dataset toy --quiet --llm {llm}"],
                         ids=["index", "run"])
def test_a_full_index_folder_is_one_line_exit_2(command: str, store: str, small_disk: Path, tmp_path: Path) -> None:
    home = small_disk / "home"
    fill(small_disk)
    code, _, err = hopkit(home, "--db", store, *command.format(llm=scripted_llm(tmp_path)).split())
    assert code == 2, err
    line = one_error_line(err)
    assert f"cannot write the index to {home / 'indexes'}" in line and "free space" in line, line


def test_a_full_log_file_is_given_up_with_one_warning_and_the_run_goes_on(store: str, small_disk: Path,
                                                                          tmp_path: Path) -> None:
    home = small_disk / "home"
    fill(small_disk)
    code, out, err = hopkit(home, "--db", store, "run", "nor", "--dataset", "toy", "--quiet", "--llm",
                            scripted_llm(tmp_path))
    assert code == 0, err  # the store had room: two answers stored, one question failed
    assert "3 questions, 0 already done, 2 answered now, 1 failed" in out
    assert "Traceback" not in err and LOGGING_ERROR not in err, err
    warnings = [line for line in err.splitlines() if "cannot write the log file" in line]
    assert len(warnings) == 1, err
    assert str(home / "logs") in warnings[0] and "free space" in warnings[0]
    assert "EmptyAnswerError" in err  # the failed question's record reached the console instead of the lost file
    assert "Every failure is in" not in err  # and the summary points at no file that lacks it


def test_a_full_llm_cache_is_bypassed_with_one_warning_saying_to_free_space(store: str, small_disk: Path,
                                                                            tmp_path: Path) -> None:
    home = small_disk / "home"
    fill(small_disk)
    code, out, err = hopkit(home, "--db", store, "run", "nor", "--dataset", "toy", "--quiet", "--llm",
                            scripted_llm(tmp_path, cache=True))
    assert code == 0, err
    assert "2 answered now, 1 failed" in out
    assert "Traceback" not in err and LOGGING_ERROR not in err, err
    warnings = [line for line in err.splitlines() if "LLM response cache" in line]
    assert len(warnings) == 1, err
    assert str(home / "llm-cache.sqlite") in warnings[0] and "free space" in warnings[0]


@pytest.mark.parametrize("command", ["report", "report --out {disk}/report", "evaluate --leaderboard {disk}/lb.md",
                                     "claims ircot --out {disk}/claims", "export nor --out {disk}/runs.jsonl"])
def test_a_full_output_folder_is_one_line_exit_2(command: str, store: str, small_disk: Path, tmp_path: Path) -> None:
    home = small_disk / "home"
    stored = Store.connect(store)
    run_id = stored.ensure_run(RunSpec("nor", "NoR", "toy", {"written": "by the test"})).run_id
    for query in stored.queries("toy"):
        stored.record_result(run_id, QueryResult(query.id, query.answers[0]))
    fill(small_disk)
    code, _, err = hopkit(home, "--db", store, *command.format(disk=small_disk).split())
    assert code == 2, err
    line = one_error_line(err)
    target = home / "reports" if command == "report" else small_disk / command.split("/")[-1]
    assert str(target) in line and "free space" in line, line


FIRST_RECORD_ABOUT_A_QUESTION = """
import logging, sys
from hopkit.cli.console import configure_console, log_kept, run_log
configure_console(verbose=False)
with run_log("run") as path:
    logging.getLogger("hopkit.test").warning("question q1 failed: the model wrote nothing", extra={"question": "q1"})
    logging.getLogger("hopkit.test").warning("question q2 failed: the model wrote nothing", extra={"question": "q2"})
print(log_kept(path))
"""


def test_the_record_a_full_log_file_could_not_take_reaches_the_console_once(small_disk: Path) -> None:
    fill(small_disk)
    env = {**os.environ, "HOPKIT_HOME": str(small_disk / "home")}
    done = subprocess.run([sys.executable, "-c", FIRST_RECORD_ABOUT_A_QUESTION], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0 and done.stdout == "False\n", done.stderr
    lines = done.stderr.splitlines()
    assert LOGGING_ERROR not in done.stderr and len(lines) == 3, done.stderr
    assert "cannot write the log file" in lines[0] and "free space" in lines[0]
    assert lines[1:] == ["WARNING hopkit.test: question q1 failed: the model wrote nothing",
                         "WARNING hopkit.test: question q2 failed: the model wrote nothing"]
