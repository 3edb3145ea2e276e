"""Fixtures that run every store test on SQLite and on PostgreSQL (``db_url``, in tests/conftest.py)."""

from __future__ import annotations

from typing import Callable, Iterator

import pytest

from hopkit.records import Corpus, Paragraph, Query
from hopkit.store import DBConnection, Store


@pytest.fixture
def connection(db_url: str) -> Iterator[DBConnection]:
    """A connection to the test database, disposed after the test."""
    conn = DBConnection(db_url)
    yield conn
    conn.dispose()


@pytest.fixture
def store(connection: DBConnection) -> Store:
    """A store on empty tables."""
    return Store(connection.get_session_factory())


def build_corpus(name: str = "toy", n_paragraphs: int = 6, n_queries: int = 3) -> Corpus:
    """A small deterministic corpus whose question i has gold paragraphs i and i+1."""
    paragraphs = tuple(Paragraph(id=i, title=f"Title {i}", text=f"Text of paragraph {i} é ✓")
                       for i in range(n_paragraphs))
    queries = tuple(
        Query(
            id=f"q{i}",
            text=f"Question {i}?",
            answers=(f"answer {i}", f"alias {i}"),
            gold_paragraph_ids=(i, i + 1),
            gold_titles=(f"Title {i}", f"Title {i + 1}"),
            main_passage=Paragraph(id=100 + i, title=f"Main {i}", text=f"main text {i}")
            if i % 2 == 0 else None,
            answer_type="yes_no" if i == 1 else "span",
        )
        for i in range(n_queries)
    )
    return Corpus(name=name, paragraphs=paragraphs, queries=queries)


@pytest.fixture
def make_corpus() -> Callable[..., Corpus]:
    """:func:`build_corpus` as a fixture."""
    return build_corpus
