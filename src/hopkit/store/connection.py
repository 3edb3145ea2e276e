"""Where the store lives: one database URL, one engine, one session factory.

SQLite file by default (``<HOPKIT_HOME>/hopkit.db``), PostgreSQL by URL
(``postgresql+psycopg://user:password@host:port/database``).

A connection opened ``read_only`` (the commands that only read: ``runs``, ``evaluate``,
``report``, ``compare``, ``export``, ``datasets``) never writes: it creates no table or
folder, and opens a SQLite file read-only, as an immutable file where its folder or its
file system cannot be written (an archive on a read-only mount), so results are readable
where they lie; on PostgreSQL its transactions are read-only.
"""

from __future__ import annotations

import logging
import re
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from sqlalchemy import Connection, Engine, create_engine, event, inspect, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import StaticPool

from hopkit import environment
from hopkit.errors import StoreError
from hopkit.store.models import Base
from hopkit.store.read_only import (READING_COMMANDS, SQLITE_BUSY_TIMEOUT_MS, check_store_tables, configure_read_only,
                                    read_only_opener, writable)

logger = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 10
# Key of the PostgreSQL advisory lock taken while creating the tables (any fixed
# 64-bit number; this one spells "hopkit" in ASCII).
# Connections an engine keeps open once opened, and more it may open for a burst: a run's worker threads
# (32 and more) each store their own answers; SQLAlchemy's default of 5 kept them waiting, and the
# connections over it were closed and opened again.
POOL_SIZE = 32
POOL_OVERFLOW = 32
SCHEMA_LOCK_KEY = 0x686F706B6974
# Creating the tables is retried this often when it fails while another process creates
# them too (SQLite has no advisory lock; a partly created schema is completed).
SCHEMA_ATTEMPTS = 5
# Seconds to wait before the next attempt, times the attempt's number: immediate retries can
# all collide with the same slow writer.
SCHEMA_RETRY_PAUSE = 0.05
# Columns added to existing tables since the first schema, as (table, column): a
# database created before them gets them when it is opened (all nullable).
ADDED_COLUMNS: tuple[tuple[str, str], ...] = (("results", "usage"),)
# Tables added since the first schema: ``create_all`` creates them in a database an older
# hopkit made (it creates every missing table and leaves existing ones alone); listed so
# that doing it is logged.
ADDED_TABLES: tuple[str, ...] = ("verdicts", "claims", "thresholds", "corpora", "corpus_passages",
                                 "dataset_corpora")

_PASSWORD_IN_URL = re.compile(r"(://[^:/@]*:)[^@/]*@")


def factory_location(session_factory: sessionmaker[Session]) -> str:
    """The URL a session factory connects to, password masked ("the database" if unknown)."""
    url = getattr(session_factory.kw.get("bind"), "url", None)
    return mask_url(url) if url is not None else "the database"


@contextmanager
def transaction(session_factory: sessionmaker[Session], action: str) -> Iterator[Session]:
    """One transaction: committed on success, rolled back on any error, which is raised as a
    :class:`StoreError` naming ``action`` and the database.

    Raises:
        StoreError: the database failed.
    """
    try:
        with session_factory.begin() as session:
            yield session
    except SQLAlchemyError as exc:
        reason = " ".join(str(getattr(exc, "orig", None) or exc).split())[:400]
        raise StoreError(f"{action} failed on {factory_location(session_factory)}: {reason}") from exc


def mask_url(url: str | URL) -> str:
    """Return ``url`` as text with its password replaced by ``***``.

    Args:
        url: a database URL, as text or as a SQLAlchemy :class:`URL`.

    Returns:
        The URL, safe to print or log.
    """
    if isinstance(url, URL):
        return url.render_as_string(hide_password=True)
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return _PASSWORD_IN_URL.sub(r"\1***@", url)


def _how_to_fix(url: URL) -> str:
    if url.get_backend_name() == "sqlite":
        path = Path(url.database or ".").expanduser()
        if path.is_file() and not writable(path):
            return (f"the database or its folder cannot be written (a read-only folder or mount): {READING_COMMANDS} "
                    "read it where it lies; to run, ingest, judge, import or delete, copy it to a writable folder")
        return ("check that the folder of the database file exists (or can be created) and is "
                "writable, or point HOPKIT_DB_URL / HOPKIT_HOME elsewhere")
    return ("check that the server is running and accepts TCP connections, and that host, port, "
            "user, password and database in the URL are right; set the URL with HOPKIT_DB_URL "
            "(for a local test server run scripts/start-postgres.sh)")


def _how_to_fix_schema(url: URL) -> str:
    if url.get_backend_name() == "sqlite":
        return "check that the database file and its folder are writable"
    return ("check that the database user may create tables in this database (or let its owner "
            "run hopkit once to create them)")


def _short_reason(exc: BaseException) -> str:
    original = getattr(exc, "orig", None) or exc
    text = " ".join(str(original).split())
    return text[:300] + ("..." if len(text) > 300 else "")


class DBConnection:
    """A database URL with its lazily created engine and session factory.

    Args:
        url: a SQLAlchemy database URL, e.g. ``sqlite:///path/hopkit.db`` or
            ``postgresql+psycopg://user:password@host:5432/db``.
        read_only: open the store for reading only (see the module's docstring).
    """

    def __init__(self, url: str, *, read_only: bool = False) -> None:
        self.url = url
        self.read_only = read_only
        self._engine: Engine | None = None
        self._session_factory: sessionmaker[Session] | None = None

    def __repr__(self) -> str:
        return f"DBConnection({mask_url(self.url)!r})"

    @classmethod
    def from_config(cls, url: str | None = None, *, read_only: bool = False) -> DBConnection:
        """Pick the database: ``url``, else ``$HOPKIT_DB_URL``, else a SQLite file.

        The SQLite file is ``<HOPKIT_HOME>/hopkit.db``, with ``HOPKIT_HOME``
        defaulting to ``./.hopkit``; the folder is created.

        Args:
            url: an explicit database URL; wins over the environment.
            read_only: open it for reading only (the folder is then not created).

        Returns:
            A connection that has not connected yet.

        Raises:
            StoreError: if the HOPKIT_HOME folder cannot be created.
        """
        chosen = url or environment.db_url()
        if chosen is None:
            home = environment.hopkit_home()
            try:
                if not read_only:
                    home.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(
                    f"cannot create the hopkit home folder {home} for the SQLite store ({exc}); "
                    f"set {environment.HOPKIT_HOME} to a writable folder or {environment.HOPKIT_DB_URL} to a "
                    "database URL"
                ) from exc
            chosen = f"sqlite:///{(home / 'hopkit.db').resolve()}"
        return cls(chosen, read_only=read_only)

    @property
    def sqlite_path(self) -> Path | None:
        """The SQLite file this URL names (None: another database, SQLite in memory, or a malformed URL,
        which opening the store reports)."""
        try:
            url = make_url(self.url)
        except ArgumentError:
            return None
        if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
            return None
        return Path(url.database).expanduser()

    @property
    def masked_url(self) -> str:
        """The URL with its password hidden."""
        return mask_url(self.url)

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine, created on first use.

        Raises:
            StoreError: if the URL is malformed or its database driver is missing.
        """
        if self._engine is None:
            self._engine = self._create_engine()
        return self._engine

    def _create_engine(self) -> Engine:
        try:
            url = make_url(self.url)
        except ArgumentError as exc:
            raise StoreError(
                f"malformed database URL {self.masked_url!r} ({exc}); expected e.g. "
                "sqlite:///path/to/hopkit.db or postgresql+psycopg://user:password@host:5432/db"
            ) from exc
        kwargs: dict[str, Any] = {}
        is_sqlite = url.get_backend_name() == "sqlite"
        if is_sqlite:
            in_memory = url.database in (None, "", ":memory:")
            if in_memory:
                kwargs.update(poolclass=StaticPool, connect_args={"check_same_thread": False})
            elif self.read_only:
                kwargs["creator"] = read_only_opener(Path(url.database or "").expanduser(), self.masked_url)
            else:
                self._make_sqlite_folder(url)
                kwargs["connect_args"] = {"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000}
        elif url.get_backend_name() == "postgresql":
            connect_args: dict[str, Any] = {}
            if "connect_timeout" not in url.query:
                connect_args["connect_timeout"] = CONNECT_TIMEOUT_S
                kwargs["pool_pre_ping"] = True
            if self.read_only:
                connect_args["options"] = "-c default_transaction_read_only=on"
            if connect_args:
                kwargs["connect_args"] = connect_args
        if "poolclass" not in kwargs and "creator" not in kwargs:
            kwargs.update(pool_size=POOL_SIZE, max_overflow=POOL_OVERFLOW)
        try:
            engine = create_engine(url, **kwargs)
        except (NoSuchModuleError, ImportError) as exc:
            raise StoreError(
                f"cannot use the database URL {self.masked_url!r}: its driver is not installed "
                f"({exc}); for PostgreSQL install psycopg (pip install 'psycopg[binary]') and "
                "use the postgresql+psycopg:// scheme"
            ) from exc
        except ArgumentError as exc:
            raise StoreError(f"invalid database URL {self.masked_url!r}: {exc}") from exc
        if is_sqlite:
            event.listen(engine, "connect", configure_read_only if self.read_only else _configure_sqlite)
        return engine

    def _make_sqlite_folder(self, url: URL) -> None:
        folder = Path(url.database or ".").expanduser().parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot open the database {self.masked_url}: cannot create the folder {folder} "
                f"({exc}); {_how_to_fix(url)}"
            ) from exc

    def create_all(self) -> None:
        """Create every missing table, and add the columns newer hopkit versions need to
        tables an older version created (:data:`ADDED_COLUMNS`; existing data is kept).

        Safe when several processes use a fresh (or older) database at once: on
        PostgreSQL the tables are created and completed under a transaction-scoped
        advisory lock, so one process changes them while the others wait and then
        find them; on any database, a change that fails because another process was
        making it too is retried, and is no error once the tables and columns are there.

        Raises:
            StoreError: if the database cannot be reached (the message names the
                URL, password hidden, and says how to fix it), or if the tables
                cannot be created (the message gives the database's reason).
        """
        engine = self.engine
        try:
            connection = engine.connect()
        except SQLAlchemyError as exc:
            raise StoreError(
                f"cannot connect to the database {self.masked_url}: {_short_reason(exc)}; "
                f"{_how_to_fix(engine.url)}"
            ) from exc
        try:
            for attempt in range(1, SCHEMA_ATTEMPTS + 1):
                try:
                    self._create_tables(connection)
                    break
                except SQLAlchemyError as exc:
                    if self._schema_ready(engine):
                        logger.debug("another process created the store tables in %s meanwhile",
                                     self.masked_url)
                        break
                    if attempt == SCHEMA_ATTEMPTS:
                        raise StoreError(
                            f"cannot create the hopkit tables in {self.masked_url}: "
                            f"{_short_reason(exc)}; {_how_to_fix_schema(engine.url)}"
                        ) from exc
                    logger.debug("creating the store tables failed (%s); retrying", exc)
                    time.sleep(SCHEMA_RETRY_PAUSE * attempt)
        finally:
            connection.close()
        logger.debug("store tables ready in %s", self.masked_url)

    @staticmethod
    def _create_tables(connection: Connection) -> None:
        with connection.begin():
            if connection.dialect.name == "postgresql":
                # Held until the transaction ends: concurrent first uses queue here
                # instead of racing on the catalogue (duplicate pg_type keys).
                connection.execute(text("SELECT pg_advisory_xact_lock(:key)"),
                                   {"key": SCHEMA_LOCK_KEY})
            existing = set(inspect(connection).get_table_names())
            Base.metadata.create_all(connection)
            _add_missing_columns(connection)
        if "runs" in existing:  # an existing store, not a fresh one
            for table_name in ADDED_TABLES:
                if table_name not in existing:
                    logger.info("added table %s to a store created by an older hopkit", table_name)

    @staticmethod
    def _schema_ready(engine: Engine) -> bool:
        try:
            inspector = inspect(engine)
            if not set(Base.metadata.tables) <= set(inspector.get_table_names()):
                return False
            return all(column in {c["name"] for c in inspector.get_columns(table)}
                       for table, column in ADDED_COLUMNS)
        except SQLAlchemyError:
            return False

    def get_session_factory(self) -> sessionmaker[Session]:
        """Return the session factory, creating the tables on first use.

        Returns:
            A :class:`sessionmaker` bound to the engine (``expire_on_commit`` off,
            so rows stay readable after their transaction).

        Raises:
            StoreError: if the database cannot be reached.
        """
        if self._session_factory is None:
            if self.read_only:
                check_store_tables(self.engine, self.masked_url)
            else:
                self.create_all()
            self._session_factory = sessionmaker(bind=self.engine, expire_on_commit=False)
        return self._session_factory

    def dispose(self) -> None:
        """Close every pooled connection (the engine is recreated on next use)."""
        if self._engine is not None:
            self._engine.dispose()
        self._engine = None
        self._session_factory = None


def _add_missing_columns(connection: Connection) -> None:
    """Add each column of :data:`ADDED_COLUMNS` that a table created by an older hopkit lacks.

    ``ALTER TABLE ... ADD COLUMN`` with the column's type as the dialect spells it; the
    new column is nullable, so existing rows keep their data and read it the old way.
    """
    inspector = inspect(connection)
    for table_name, column_name in ADDED_COLUMNS:
        if column_name in {c["name"] for c in inspector.get_columns(table_name)}:
            continue
        column = Base.metadata.tables[table_name].c[column_name]
        preparer = connection.dialect.identifier_preparer
        connection.execute(text(
            f"ALTER TABLE {preparer.format_table(column.table)} ADD COLUMN "
            f"{preparer.format_column(column)} {column.type.compile(dialect=connection.dialect)}"))
        logger.info("added column %s.%s to a store created by an older hopkit", table_name, column_name)


def _configure_sqlite(dbapi_connection: Any, _record: Any) -> None:
    """Turn on WAL, a busy timeout and foreign keys for every new SQLite connection."""
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        _turn_on_wal(cursor)
        cursor.execute("PRAGMA synchronous=NORMAL")
    finally:
        cursor.close()


def _turn_on_wal(cursor: Any) -> None:
    """``PRAGMA journal_mode=WAL``, waiting for other connections: switching a database that is
    not yet in WAL mode needs it to itself, and SQLite answers "locked" at once rather than
    waiting the busy timeout when another connection is reading it."""
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)
