"""The store a command opens."""

from __future__ import annotations

import argparse
from typing import Any

from hopkit.store.connection import DBConnection


def reading_factory(args: argparse.Namespace) -> Any:
    """The store of a command that only reads, opened read-only: an archive on a read-only mount is readable.
    A SQLite file that does not exist yet is created empty, as any command does, so the command says what
    is missing."""
    connection = DBConnection.from_config(args.db, read_only=True)
    if connection.sqlite_path is not None and not connection.sqlite_path.exists():
        connection = DBConnection.from_config(args.db)
    return connection.get_session_factory()
