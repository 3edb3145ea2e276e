"""The dialect-specific INSERT ... ON CONFLICT statements the store writes with (SQLite, PostgreSQL)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, Sequence

from sqlalchemy import insert
from sqlalchemy.dialects import postgresql, sqlite

UPSERT_DIALECTS = ("postgresql", "sqlite")


def _insert(dialect: str, model: type[Any]) -> Any:
    return (postgresql if dialect == "postgresql" else sqlite).insert(model)


def insert_ignoring_conflict(dialect: str, model: type[Any], keys: Sequence[str]) -> Any:
    """INSERT that does nothing when a row with the same ``keys`` exists (a plain INSERT on other databases)."""
    if dialect not in UPSERT_DIALECTS:
        return insert(model)
    return _insert(dialect, model).on_conflict_do_nothing(index_elements=list(keys))


def upsert(dialect: str, model: type[Any], values: dict[str, Any], keys: Sequence[str],
           only_if: Any = None) -> Any:
    """INSERT ``values``, or update the row with the same ``keys`` (``dialect`` is one of
    :data:`UPSERT_DIALECTS`).

    Args:
        only_if: a function of the statement's ``excluded`` row giving the condition under
            which an existing row is updated (None: always).
    """
    return upsert_many(dialect, model, [values], keys, only_if)


def upsert_many(dialect: str, model: type[Any], rows: Sequence[dict[str, Any]], keys: Sequence[str],
                only_if: Any = None) -> Any:
    """:func:`upsert` of several rows with the same columns in one statement."""
    statement = _insert(dialect, model).values(list(rows))
    return statement.on_conflict_do_update(
        index_elements=list(keys),
        set_={key: statement.excluded[key] for key in rows[0] if key not in keys},
        where=None if only_if is None else only_if(statement.excluded))


@lru_cache(maxsize=32)
def prepared_upsert(dialect: str, model: type[Any], columns: tuple[str, ...], keys: tuple[str, ...],
                    only_if: Callable[[Any], Any] | None = None) -> Any:
    """:func:`upsert` built once for rows of these ``columns``: execute it with a row as its
    parameters (building and compiling the statement per row costs more than the write)."""
    statement = _insert(dialect, model.__table__)
    return statement.on_conflict_do_update(
        index_elements=list(keys),
        set_={column: statement.excluded[column] for column in columns if column not in keys},
        where=None if only_if is None else only_if(statement.excluded))
