"""The store a command opens, and the runs it names."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from hopkit.environment import HOPKIT_DB_URL, HOPKIT_HOME
from hopkit.errors import StoreError
from hopkit.scoring_runs import split_scorable
from hopkit.store.connection import DBConnection
from hopkit.store.records import RunInfo
from hopkit.store.store import Store
from hopkit.terminal import printable


def _refuse_missing(connection: DBConnection) -> None:
    """A command that needs what a store holds, pointed at a SQLite file that does not exist (a typo in --db, say),
    stops before anything is created.

    Raises:
        StoreError: naming the file, and where the URL came from.
    """
    path = connection.sqlite_path
    if path is not None and not path.exists():
        raise StoreError(f"no hopkit store at {path}: the file does not exist (nothing was created); check --db, "
                         f"{HOPKIT_DB_URL} or {HOPKIT_HOME}, or start a store there with `hopkit ingest`")


def reading_factory(args: argparse.Namespace) -> Any:
    """The store of a command that only reads, opened read-only: an archive on a read-only mount is readable.

    Raises:
        StoreError: a SQLite file that does not exist (nothing is created), or a database that holds no store.
    """
    connection = DBConnection.from_config(args.db, read_only=True)
    _refuse_missing(connection)
    return connection.get_session_factory()


def existing_connection(args: argparse.Namespace) -> DBConnection:
    """The store of a command that works on what is stored (run, index, judge, delete, ...), to be opened
    read-write; a SQLite file that does not exist is refused, never created (ingest and import create one).

    Raises:
        StoreError: the SQLite file does not exist.
    """
    _refuse_missing(DBConnection.from_config(args.db, read_only=True))  # read_only: makes no home folder
    return DBConnection.from_config(args.db)


def existing_factory(args: argparse.Namespace) -> Any:
    """:func:`existing_connection`'s session factory."""
    return existing_connection(args).get_session_factory()


def session_factory(args: argparse.Namespace) -> Any:
    """The store of a command that may start one (ingest, import, quickstart): created if missing."""
    return DBConnection.from_config(args.db).get_session_factory()


def runs_hint(store: Store) -> str:
    """Where runs are looked up, and where the benchmark scripts keep theirs."""
    return (f"runs are looked up in {store.location} (another store: --db URL or $HOPKIT_DB_URL); "
            "the benchmark scripts (benchmarks/*.py) keep theirs in a store of their own, by default "
            ".hopkit-bench/hopkit.db in the hopkit repository, else the URL given to their --db "
            "(from the repository root: --db sqlite:///.hopkit-bench/hopkit.db), and save copies in "
            "benchmarks/results/runs/ that `hopkit import` loads into a store holding the same dataset")


def find_runs(store: Store, name: str) -> list[RunInfo]:
    try:
        return store.find_runs(name)
    except StoreError as exc:
        raise StoreError(f"{exc}; {runs_hint(store)}") from exc


def select_runs(store: Store, names: list[str], dataset: str | None) -> list[RunInfo]:
    if not names:
        runs = store.runs(dataset)
    else:
        found = [run for name in names for run in find_runs(store, name)
                 if dataset is None or run.dataset == dataset]
        runs = list({run.run_id: run for run in found}.values())
    if not runs:
        on = f" on dataset {dataset!r}" if dataset is not None else ""
        raise StoreError(f"no run{on} matches; list them with `hopkit runs`; {runs_hint(store)}")
    scorable, skipped = split_scorable(runs)
    for skip in skipped:
        print(f"hopkit: skipped: {printable(skip.reason)}", file=sys.stderr)
    if not scorable:
        raise StoreError(f"none of the {len(runs)} selected run(s) can be scored (see above)")
    return scorable


def one_run(store: Store, name: str) -> RunInfo:
    """The one scorable run ``name`` selects; stale or empty matches are skipped with the reason."""
    scorable, skipped = split_scorable(find_runs(store, name))
    for skip in skipped:
        print(f"hopkit: skipped: {printable(skip.reason)}", file=sys.stderr)
    if not scorable:
        raise StoreError(f"{name!r} names no run that can be scored (see above)")
    if len(scorable) > 1:
        listed = ", ".join(f"{run.name!r} ({run.run_id}) on {run.dataset}" for run in scorable)
        raise StoreError(f"{name!r} names {len(scorable)} runs: {listed}; name one by its id "
                         "(or an id prefix of at least 4 characters)")
    return scorable[0]
