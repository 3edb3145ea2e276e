"""A database created before results had a ``usage`` column (and before the ``verdicts``
table) keeps opening and reading.

The old schema below is the DDL that hopkit emitted before the column was added
(SQLAlchemy's ``CreateTable`` of the old models, for SQLite and PostgreSQL), written
out here so the test does not depend on today's models.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import create_engine, inspect, text

from hopkit.scoring_runs import score_run
from hopkit.store import DBConnection, QueryResult, Store, StoredVerdict, VerdictStore
from hopkit.usage import ComponentUsage, Usage

pytestmark = pytest.mark.unit

OLD_SCHEMA = """
CREATE TABLE datasets (
    id {serial} NOT NULL, name VARCHAR NOT NULL, created_at {timestamp} NOT NULL,
    fingerprint VARCHAR(64) NOT NULL, PRIMARY KEY (id), UNIQUE (name));
CREATE TABLE runs (
    id VARCHAR(16) NOT NULL, name VARCHAR NOT NULL, method VARCHAR NOT NULL, dataset VARCHAR NOT NULL,
    dataset_fingerprint VARCHAR(64) NOT NULL, config JSON NOT NULL, created_at {timestamp} NOT NULL,
    PRIMARY KEY (id));
CREATE INDEX ix_runs_name ON runs (name);
CREATE INDEX ix_runs_dataset ON runs (dataset);
CREATE TABLE paragraphs (
    dataset_id INTEGER NOT NULL, id INTEGER NOT NULL, title TEXT NOT NULL, text TEXT NOT NULL,
    PRIMARY KEY (dataset_id, id), FOREIGN KEY(dataset_id) REFERENCES datasets (id) ON DELETE CASCADE);
CREATE TABLE queries (
    dataset_id INTEGER NOT NULL, position INTEGER NOT NULL, id VARCHAR NOT NULL, text TEXT NOT NULL,
    answers JSON NOT NULL, gold_paragraph_ids JSON NOT NULL, gold_titles JSON NOT NULL,
    main_passage_id INTEGER, main_passage_title TEXT, main_passage_text TEXT, answer_type VARCHAR NOT NULL,
    PRIMARY KEY (dataset_id, position), CONSTRAINT uq_queries_dataset_query UNIQUE (dataset_id, id),
    FOREIGN KEY(dataset_id) REFERENCES datasets (id) ON DELETE CASCADE);
CREATE TABLE results (
    id {serial} NOT NULL, run_id VARCHAR(16) NOT NULL, query_id VARCHAR NOT NULL, prediction TEXT NOT NULL,
    chunk_ids JSON NOT NULL, trace JSON NOT NULL, llm_calls INTEGER NOT NULL, prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL, cached_prompt_tokens INTEGER NOT NULL, llm_seconds FLOAT NOT NULL,
    retrieval_seconds FLOAT NOT NULL, total_seconds FLOAT NOT NULL, error TEXT, created_at {timestamp} NOT NULL,
    PRIMARY KEY (id), CONSTRAINT uq_results_run_query UNIQUE (run_id, query_id),
    FOREIGN KEY(run_id) REFERENCES runs (id) ON DELETE CASCADE)
"""
TYPES = {"sqlite": {"serial": "INTEGER", "timestamp": "DATETIME"},
         "postgresql": {"serial": "SERIAL", "timestamp": "TIMESTAMP WITH TIME ZONE"}}
NOW = "2024-05-01 12:00:00.000000"
RUN_ID = "0123456789abcdef"
FINGERPRINT = "f" * 64
OLD_ROWS = [  # query_id, prediction, llm_calls, prompt, completion, cached, llm_s, retrieval_s, total_s, error
    ("q0", "Paris", 2, 120, 15, 40, 1.5, 0.25, 1.8, None),
    ("q1", "", 1, 50, 0, 0, 0.5, 0.0, 0.6, "LLMServerError: down"),
]


def create_old_database(url: str) -> None:
    """The five tables as the old hopkit created them, with one dataset, one run and two results."""
    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            for statement in OLD_SCHEMA.format(**TYPES[engine.dialect.name]).split(";"):
                connection.execute(text(statement))
            connection.execute(text("INSERT INTO datasets (id, name, created_at, fingerprint) "
                                    "VALUES (1, 'toy', :now, :fp)"), {"now": NOW, "fp": FINGERPRINT})
            connection.execute(text("INSERT INTO paragraphs VALUES (1, 0, 'France', 'Paris is in France.')"))
            connection.execute(text(
                "INSERT INTO queries VALUES (1, :position, :id, 'Capital?', '[\"Paris\"]', '[0]', '[\"France\"]', "
                "NULL, NULL, NULL, 'span')"), [{"position": 0, "id": "q0"}, {"position": 1, "id": "q1"}])
            connection.execute(text(
                "INSERT INTO runs VALUES (:id, 'nor', 'nor', 'toy', :fp, '{\"k\": 1}', :now)"),
                {"id": RUN_ID, "fp": FINGERPRINT, "now": NOW})
            connection.execute(text(
                "INSERT INTO results (run_id, query_id, prediction, chunk_ids, trace, llm_calls, prompt_tokens, "
                "completion_tokens, cached_prompt_tokens, llm_seconds, retrieval_seconds, total_seconds, error, "
                "created_at) VALUES (:run, :q, :p, '[]', '{\"steps\": 1}', :calls, :prompt, :completion, :cached, "
                ":llm_s, :retrieval_s, :total_s, :error, :now)"),
                [dict(zip(("q", "p", "calls", "prompt", "completion", "cached", "llm_s", "retrieval_s", "total_s",
                           "error"), row), run=RUN_ID, now=NOW) for row in OLD_ROWS])
    finally:
        engine.dispose()


def table_names(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def result_columns(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        return {column["name"] for column in inspect(engine).get_columns("results")}
    finally:
        engine.dispose()


@pytest.fixture
def old_url(db_url: str) -> str:
    """``db_url`` emptied and filled with the old schema and its rows."""
    engine = create_engine(db_url)
    try:
        with engine.begin() as connection:
            for table in ("results", "runs", "queries", "paragraphs", "datasets"):
                connection.execute(text(f"DROP TABLE IF EXISTS {table}"))
    finally:
        engine.dispose()
    create_old_database(db_url)
    assert "usage" not in result_columns(db_url) and "verdicts" not in table_names(db_url)
    return db_url


def test_an_old_database_opens_and_its_results_read_from_the_legacy_columns(old_url: str) -> None:
    connection = DBConnection(old_url)
    try:
        store = Store(connection.get_session_factory())
        assert "usage" in result_columns(old_url)
        first, failed = store.results(RUN_ID)
        assert first.usage == Usage(1.8, {"model": ComponentUsage(2, 0.0, 2, 1.5, 120, 40, 15),
                                          "retrieval": ComponentUsage(0, 0.25)})
        assert failed.usage == Usage(0.6, {"model": ComponentUsage(1, 0.0, 1, 0.5, prompt_tokens=50)})
        assert (first.trace, failed.error) == ({"steps": 1}, "LLMServerError: down")
        run = store.run(RUN_ID)
        assert (run.finished, run.failed, run.stale) == (1, 1, False)
        summary, _ = score_run(store, run)
        assert summary.llm_seconds_per_q == pytest.approx(1.0) and summary.seconds_per_q == pytest.approx(1.2)
        assert summary.other_seconds_per_q == pytest.approx((0.05 + 0.1) / 2)
    finally:
        connection.dispose()


def test_new_results_in_an_old_database_fill_usage_and_the_legacy_columns(old_url: str) -> None:
    connection = DBConnection(old_url)
    try:
        store = Store(connection.get_session_factory())
        usage = Usage(3.0, {"model": ComponentUsage(1, 0.0, 1, 2.0, prompt_tokens=70, completion_tokens=5),
                            "judge:relevance": ComponentUsage(4, 0.5)})
        retried = QueryResult("q1", "Paris", (0,), {"steps": 2}, usage)
        store.record_result(RUN_ID, retried)
        assert store.results(RUN_ID)[1] == retried
        with connection.engine.connect() as raw:
            legacy = raw.execute(text("SELECT llm_calls, prompt_tokens, llm_seconds, retrieval_seconds, "
                                      "total_seconds FROM results WHERE query_id = 'q1'")).one()
        assert tuple(legacy) == (1, 70, 2.0, 0.0, 3.0)  # what an older hopkit reading this database sees
    finally:
        connection.dispose()
    again = DBConnection(old_url)  # opening a migrated database again changes nothing
    try:
        assert Store(again.get_session_factory()).results(RUN_ID)[1] == retried
    finally:
        again.dispose()


def test_several_processes_opening_an_old_database_at_once(old_url: str) -> None:
    workers = 4
    barrier = threading.Barrier(workers)

    def first_use(_: int) -> int:
        connection = DBConnection(old_url)
        try:
            _ = connection.engine
            barrier.wait(timeout=30)
            return len(Store(connection.get_session_factory()).results(RUN_ID))
        finally:
            connection.dispose()

    with ThreadPoolExecutor(max_workers=workers) as pool:
        assert list(pool.map(first_use, range(workers))) == [2] * workers


def test_an_old_database_gets_the_verdicts_table_and_keeps_its_rows(old_url: str) -> None:
    connection = DBConnection(old_url)
    try:
        factory = connection.get_session_factory()
        assert "verdicts" in table_names(old_url)
        verdict = StoredVerdict("q0", "Paris", True, "Yes")
        VerdictStore(factory).record(RUN_ID, "judge-model", "migres-table15-v1/chat", verdict)
        assert [r.prediction for r in Store(factory).results(RUN_ID)] == ["Paris", ""]
    finally:
        connection.dispose()
    again = DBConnection(old_url)  # opening it again keeps the verdict
    try:
        assert VerdictStore(again.get_session_factory()).verdicts(
            RUN_ID, "judge-model", "migres-table15-v1/chat") == {"q0": verdict}
    finally:
        again.dispose()
