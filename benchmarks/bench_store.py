"""The store and model the paired checks read: qa_bench's SQLite file (or ``--db``) and an LLM config."""

from __future__ import annotations

import argparse
from typing import Any

from benchmarks.environment import LLM_NAME, use_bench_home
from benchmarks.token_floor import load_llm
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store


def add_store_options(parser: argparse.ArgumentParser) -> None:
    """``--llm`` (the model config the runs were made with) and ``--db``."""
    parser.add_argument("--llm", default=LLM_NAME, help="the LLM config the runs were made with")
    parser.add_argument("--db", default=None, help="default: the sqlite file in .hopkit-bench (as qa_bench)")


def open_store(args: argparse.Namespace) -> tuple[Any, Store, Any]:
    """The session factory, the store and the loaded model ``args`` name."""
    use_bench_home()
    session_factory = DBConnection.from_config(args.db).get_session_factory()
    return session_factory, Store(session_factory), load_llm(args.llm, None)
