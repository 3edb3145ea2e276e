"""Shared pieces of the fault-injection suite.

Every test here runs the real thing end to end except the model: a real method (NoR,
whose reader makes one model call per question), the real OpenAI-compatible HTTP
backend, the real runner and a real SQLite store. The model is the loopback
``FakeOpenAIServer``, told to misbehave (``Fault``) on chosen requests.
"""

from __future__ import annotations

import re
from pathlib import Path
import pytest

from hopkit.records import Corpus, Paragraph, Query
from hopkit.store.connection import DBConnection
from hopkit.store.records import QueryResult, RunSpec
from hopkit.store.store import Store

QUESTION = "Where was person {number} born?"
_NUMBER = re.compile(r"Where was person (\d+) born\?")


def town_of(prompt: str) -> str:
    """The model: the one-word answer to the (last) question in the prompt."""
    numbers = _NUMBER.findall(prompt)
    return f"Ville{numbers[-1]}" if numbers else "Nowhere"


def question_number(prompt: str) -> int:
    """Which question a prompt asks (-1 if none)."""
    numbers = _NUMBER.findall(prompt)
    return int(numbers[-1]) if numbers else -1


def toy_queries(count: int) -> tuple[Query, ...]:
    return tuple(Query(id=f"q{i}", text=QUESTION.format(number=i), answers=(f"Ville{i}",)) for i in range(count))


def toy_spec(name: str = "nor-faults") -> RunSpec:
    return RunSpec(name=name, method="nor", dataset="toy", config={"suite": "faults"})


def assert_stored_once_and_never_empty(results: list[QueryResult]) -> None:
    """The invariants of the store after any run, however it ended."""
    ids = [r.query_id for r in results]
    assert len(ids) == len(set(ids)), f"a question is stored twice: {sorted(ids)}"
    for result in results:
        if result.error is None:
            assert result.prediction.strip(), f"{result.query_id} is stored as a successful empty answer"


class Toy:
    """The toy world of the suite, handed to tests by the ``toy`` fixture (a test module
    cannot import this conftest under ``--import-mode=importlib``)."""

    town_of = staticmethod(town_of)
    question_number = staticmethod(question_number)
    queries = staticmethod(toy_queries)
    spec = staticmethod(toy_spec)
    check = staticmethod(assert_stored_once_and_never_empty)

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def store(self, count: int) -> tuple[Store, str]:
        """A real SQLite store holding ``count`` toy questions, and its URL."""
        url = f"sqlite:///{self.folder / 'faults.db'}"
        store = Store(DBConnection(url).get_session_factory())
        store.add_corpus(Corpus("toy", (Paragraph(0, "Ville0", "Ville0 is a town."),), toy_queries(count)))
        return store, url


@pytest.fixture()
def toy(tmp_path: Path) -> Toy:
    return Toy(tmp_path)
