"""Opening a SQLite store for reading only, where it lies: a read-only folder or mount included.

SQLite's WAL mode (hopkit's) needs a shared-memory file beside the database even to read it.
Where nothing can be written beside the file and no write-ahead log is there, the file is opened
as immutable (hopkit leaves everything in the file when it closes a store); a ``-wal`` file left
by a process that never closed the store is read when its ``-shm`` file is there too.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any, Callable
from urllib.parse import quote

from sqlalchemy import Engine, inspect
from sqlalchemy.exc import SQLAlchemyError

from hopkit.errors import StoreError

SQLITE_BUSY_TIMEOUT_MS = 30_000
# The commands that only read a store, and open it read-only.
READING_COMMANDS = "runs, datasets, evaluate, report, compare and export"


def writable(path: Path) -> bool:
    """Whether the SQLite file ``path`` and its folder can be written (not so on a read-only mount)."""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def read_only_opener(path: Path, location: str) -> Callable[[], sqlite3.Connection]:
    """A function opening the SQLite file at ``path`` read-only (``location``: the URL for messages).

    Raises:
        StoreError: there is no such file.
    """
    if not path.is_file():
        raise StoreError(f"cannot open the database {location}: there is no file {path} (nothing is stored there "
                         "yet; check --db or HOPKIT_DB_URL / HOPKIT_HOME)")
    with_log = all(path.with_name(path.name + suffix).is_file() for suffix in ("-wal", "-shm"))
    uri = f"file:{quote(str(path.resolve()))}?mode=ro" + ("" if writable(path) or with_log else "&immutable=1")

    def open_read_only() -> sqlite3.Connection:
        return sqlite3.connect(uri, uri=True, timeout=SQLITE_BUSY_TIMEOUT_MS / 1000, check_same_thread=False)

    return open_read_only


def configure_read_only(dbapi_connection: Any, _record: Any) -> None:
    """A busy timeout and ``query_only`` for a read-only SQLite connection (no journal mode change)."""
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA query_only=ON")
    finally:
        cursor.close()


def check_store_tables(engine: Engine, location: str) -> None:
    """A store opened read-only must already hold hopkit's tables (nothing may create them).

    Raises:
        StoreError: the database cannot be read, or holds no hopkit store.
    """
    try:
        tables = set(inspect(engine).get_table_names())
    except SQLAlchemyError as exc:
        reason = " ".join(str(getattr(exc, "orig", None) or exc).split())[:300]
        raise StoreError(f"cannot read the database {location}: {reason}; check that it is readable and is a hopkit "
                         "store") from exc
    if not {"runs", "results"} <= tables:
        raise StoreError(f"{location} holds no hopkit store (no runs or results table): nothing has been stored "
                         "there yet; check --db or HOPKIT_DB_URL / HOPKIT_HOME")
