"""Creating the tables: safe when several processes start on a fresh database at once, and
an error while creating them is not reported as a connection problem."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import create_engine, inspect, text

from hopkit.errors import StoreError
from hopkit.store import DBConnection, Store
from hopkit.store.models import Base

pytestmark = pytest.mark.unit

WORKERS = 6
ROUNDS = 4
CONNECTION_HINT = "check that the server is running"


def first_use(url: str, barrier: threading.Barrier) -> str:
    """What one process does on first use: its own engine, tables, one read."""
    connection = DBConnection(url)
    try:
        _ = connection.engine
        barrier.wait(timeout=30)
        try:
            return ",".join(Store(connection.get_session_factory()).datasets()) or "ok"
        except StoreError as exc:
            return f"StoreError: {exc}"
    finally:
        connection.dispose()


def drop_everything(url: str) -> None:
    engine = create_engine(url)
    try:
        Base.metadata.drop_all(engine)
    finally:
        engine.dispose()


def test_concurrent_first_use_of_a_fresh_database(db_url: str) -> None:
    """Before the fix PostgreSQL failed here with a duplicate key in pg_type_typname_nsp_index,
    reported as "cannot connect ... check that the server is running"."""
    for _ in range(ROUNDS):
        drop_everything(db_url)
        barrier = threading.Barrier(WORKERS)
        with ThreadPoolExecutor(max_workers=WORKERS) as pool:
            outcomes = list(pool.map(lambda _: first_use(db_url, barrier), range(WORKERS)))
        assert outcomes == ["ok"] * WORKERS
        engine = create_engine(db_url)
        try:
            assert set(Base.metadata.tables) <= set(inspect(engine).get_table_names())
        finally:
            engine.dispose()


def test_a_schema_error_is_not_blamed_on_the_server(db_url: str) -> None:
    """An object already holding a table's name makes CREATE TABLE fail after connecting."""
    drop_everything(db_url)
    engine = create_engine(db_url)
    blocker = {
        "postgresql": ("CREATE TYPE datasets AS (x integer)", "DROP TYPE IF EXISTS datasets"),
        "sqlite": ("CREATE TABLE blocker (x integer); CREATE INDEX datasets ON blocker (x)",
                   "DROP TABLE IF EXISTS blocker"),
    }[engine.dialect.name]
    try:
        with engine.begin() as connection:
            for statement in blocker[0].split(";"):
                connection.execute(text(statement))
        with pytest.raises(StoreError) as caught:
            DBConnection(db_url).create_all()
        message = str(caught.value)
        assert "cannot create the hopkit tables" in message and "datasets" in message
        assert "cannot connect" not in message and CONNECTION_HINT not in message
        assert "may create tables" in message or "writable" in message
    finally:
        with engine.begin() as connection:
            connection.execute(text(blocker[1]))
        engine.dispose()


def test_connection_errors_keep_the_server_hint() -> None:
    url = "postgresql+psycopg://hopkit:pw@127.0.0.1:1/hopkit_test"
    with pytest.raises(StoreError, match=f"cannot connect to the database.*{CONNECTION_HINT}"):
        DBConnection(url).create_all()
