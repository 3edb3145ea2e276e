"""Verdicts of LLM judges: one per (run, question, judge), replaced when the answer changed,
never mixed between judges; on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Callable

import pytest
from sqlalchemy import text

from hopkit.errors import StoreError
from hopkit.records import Corpus
from hopkit.store import DBConnection, RunSpec, Store, StoredVerdict, VerdictStore

pytestmark = pytest.mark.unit

JUDGE = ("qwen2.5-coder-1.5b", "migres-table15-v1/chat")
OTHER = ("smollm2", "migres-table15-v1/completion")


@pytest.fixture
def run_id(store: Store, make_corpus: Callable[..., Corpus]) -> str:
    store.add_corpus(make_corpus())
    return store.ensure_run(RunSpec(name="nor", method="nor", dataset="toy", config={"k": 1})).run_id


@pytest.fixture
def verdicts(connection: DBConnection) -> VerdictStore:
    return VerdictStore(connection.get_session_factory())


def test_verdicts_read_back_per_judge(verdicts: VerdictStore, run_id: str) -> None:
    yes = StoredVerdict("q0", "Paris", True, "Yes.")
    unreadable = StoredVerdict("q1", "Lyon", None, "I cannot say")
    verdicts.record(run_id, *JUDGE, yes)
    verdicts.record(run_id, *JUDGE, unreadable)
    verdicts.record(run_id, *OTHER, StoredVerdict("q0", "Paris", False, "No"))
    assert verdicts.verdicts(run_id, *JUDGE) == {"q0": yes, "q1": unreadable}
    assert verdicts.verdicts(run_id, *OTHER) == {"q0": StoredVerdict("q0", "Paris", False, "No")}
    assert verdicts.verdicts(run_id, JUDGE[0], "migres-table15-v2/chat") == {}
    assert verdicts.judges([run_id]) == sorted([JUDGE, OTHER])
    assert verdicts.judges(["0000000000000000"]) == []


def test_a_new_verdict_on_the_same_question_replaces_the_old_one(verdicts: VerdictStore, run_id: str) -> None:
    verdicts.record(run_id, *JUDGE, StoredVerdict("q0", "", False, "No"))
    again = StoredVerdict("q0", "Paris", True, "Yes")
    verdicts.record(run_id, *JUDGE, again)
    verdicts.record(run_id, *JUDGE, again)
    assert verdicts.verdicts(run_id, *JUDGE) == {"q0": again}


def test_unknown_run_and_empty_judge_names_are_refused(verdicts: VerdictStore, run_id: str) -> None:
    with pytest.raises(StoreError, match="unknown run 'nope'"):
        verdicts.record("nope", *JUDGE, StoredVerdict("q0", "Paris", True, "Yes"))
    with pytest.raises(StoreError, match="unknown run 'nope'"):
        verdicts.verdicts("nope", *JUDGE)
    with pytest.raises(StoreError, match="judge_model must be a non-empty string"):
        verdicts.record(run_id, " ", JUDGE[1], StoredVerdict("q0", "Paris", True, "Yes"))


def test_verdicts_go_with_their_run(connection: DBConnection, verdicts: VerdictStore, run_id: str) -> None:
    verdicts.record(run_id, *JUDGE, StoredVerdict("q0", "Paris", True, "Yes"))
    with connection.get_session_factory().begin() as session:  # what deleting a run by hand does
        session.execute(text("DELETE FROM runs WHERE id = :id"), {"id": run_id})
    assert verdicts.judges([run_id]) == []
