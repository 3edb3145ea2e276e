"""Importing checks every row against the target store first, on SQLite and on PostgreSQL.

Issue 28 item 2: a result whose question is not in the dataset, or whose paragraph ids are
not in the corpus, was imported with exit 0 and then stopped `evaluate` and `report` for
every run. Now such a file is refused with its line named and nothing written; a file cut
off in the middle imports up to its last whole line and says so; a line repeated counts once.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from hopkit.errors import StoreError
from hopkit.store import DBConnection, QueryResult, RunSpec, Store
from hopkit.store.transfer import export_runs, import_runs
from hopkit.store.verdicts import StoredVerdict

from .conftest import build_corpus

pytestmark = pytest.mark.unit


def _exported(tmp_path: Path, runs: int = 1) -> tuple[list[dict[str, Any]], list[str]]:
    source = Store(DBConnection(f"sqlite:///{tmp_path / 'source.db'}").get_session_factory())
    source.add_corpus(build_corpus())
    run_ids = []
    for number in range(runs):
        run_id = source.ensure_run(RunSpec(f"run{number}", "oner", "toy", {"k": number})).run_id
        for query in ("q0", "q1", "q2"):
            source.record_result(run_id, QueryResult(query, f"answer {query}", (0, 1)))
        source.verdicts.record(run_id, "judge", "v1", StoredVerdict("q0", "answer q0", True, "Yes"))
        run_ids.append(run_id)
    path = tmp_path / "good.jsonl"
    export_runs(source, run_ids, path)
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()], run_ids


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture()
def target(store: Store) -> Store:
    store.add_corpus(build_corpus())
    return store


@pytest.mark.parametrize("field, value, message", [
    ("query_id", "not-a-question", r"line 4: question 'not-a-question' of run \w+ is not in dataset 'toy'"),
    ("chunk_ids", [0, 999999], r"line 4: paragraph id 999999 is not in the corpus of dataset 'toy'"),
    ("chunk_ids", [-5], r"line 4: paragraph id -5 of run \w+ is not a paragraph id"),
])
def test_a_row_the_store_does_not_know_refuses_the_file_and_writes_nothing(
        target: Store, tmp_path: Path, field: str, value: Any, message: str) -> None:
    lines, (run_id,) = _exported(tmp_path)
    lines[3]["result"][field] = value  # line 4: the run's second result
    with pytest.raises(StoreError, match=message + ".*Nothing was imported"):
        import_runs(target, _write(tmp_path / "edited.jsonl", lines))
    assert target.runs() == []


def test_a_verdict_on_an_unknown_question_refuses_the_file(target: Store, tmp_path: Path) -> None:
    lines, _ = _exported(tmp_path)
    lines[-1]["verdict"]["query_id"] = "q404"
    with pytest.raises(StoreError, match=r"line 6: question 'q404'"):
        import_runs(target, _write(tmp_path / "edited.jsonl", lines))
    assert target.runs() == []


@pytest.mark.parametrize("compressed", [False, True])
def test_a_cut_off_file_imports_its_whole_lines_and_says_which_runs(target: Store, tmp_path: Path,
                                                                   compressed: bool) -> None:
    lines, run_ids = _exported(tmp_path, runs=2)
    text = "".join(json.dumps(r) + "\n" for r in lines)
    cut = text[: text.index('"run1"') + 200]  # inside the second run's first result
    if compressed:
        path = tmp_path / "cut.jsonl.gz"
        compressed = gzip.compress(text.encode("utf-8"), mtime=0)
        path.write_bytes(compressed[: len(compressed) * 4 // 5])
    else:
        path = tmp_path / "cut.jsonl"
        path.write_text(cut, encoding="utf-8")
    summary = import_runs(target, path)
    assert summary.truncated_after is not None and 2 <= summary.truncated_after < len(lines)
    assert summary.runs[0] == run_ids[0] and summary.run_names[0] == "run0"
    whole = lines[1:summary.truncated_after]  # after the header, up to the last whole line
    for run_id in run_ids:
        expected = [r["result"]["query_id"] for r in whole if r.get("result", {}).get("run_id") == run_id]
        imported = [r.query_id for r in target.results(run_id)] if run_id in summary.runs else []
        assert imported == expected
    assert summary.results_added == sum("result" in r for r in whole)
    again = import_runs(target, path)  # what was imported is kept, not doubled
    assert again.results_added == 0 and again.results_kept == summary.results_added


def test_duplicate_lines_in_one_file_count_once(target: Store, tmp_path: Path) -> None:
    lines, (run_id,) = _exported(tmp_path)
    doubled = lines[:2] + lines[1:] + lines[2:]  # the run line, every result and the verdict twice
    summary = import_runs(target, _write(tmp_path / "doubled.jsonl", doubled))
    assert (summary.runs, summary.results_added, summary.results_kept, summary.verdicts_added) == ((run_id,), 3, 0, 1)
    assert len(target.results(run_id)) == 3


def test_an_answer_after_a_failure_of_the_same_question_in_one_file_counts_once(target: Store,
                                                                                 tmp_path: Path) -> None:
    lines, (run_id,) = _exported(tmp_path)
    failed = json.loads(json.dumps(lines[2]))
    failed["result"].update(prediction="", error="LLMError: timeout")
    summary = import_runs(target, _write(tmp_path / "both.jsonl", [lines[0], lines[1], failed, *lines[2:]]))
    assert summary.results_added == 3
    assert all(result.ok for result in target.results(run_id))


def test_results_a_store_already_holds_for_unknown_questions_are_left_out_of_the_counts(target: Store) -> None:
    """`hopkit runs` counted an orphan row (a question not in the dataset) as done."""
    run_id = target.ensure_run(RunSpec("orphaned", "oner", "toy", {})).run_id
    target.record_result(run_id, QueryResult("q0", "answer", (0,)))
    target.record_result(run_id, QueryResult("ghost", "answer", (0,)))
    assert (target.run(run_id).finished, target.run(run_id).failed) == (1, 0)
    assert target.delete_run(run_id) == 2
    assert target.runs() == []
