"""The store and model the paired checks read: qa_bench's SQLite file (or ``--db``) and an LLM config."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from hopkit.store.connection import DBConnection
from hopkit.store.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parent))
from token_floor import BENCH_HOME, load_llm  # noqa: E402  (pysbd ships a package named "benchmarks")


def add_store_options(parser: argparse.ArgumentParser) -> None:
    """``--llm`` (the model config the runs were made with) and ``--db``."""
    parser.add_argument("--llm", default="qwen2.5-coder-1.5b-4k", help="the LLM config the runs were made with")
    parser.add_argument("--db", default=None, help="default: the sqlite file in .hopkit-bench (as qa_bench)")


def open_store(args: argparse.Namespace) -> tuple[Any, Store, Any]:
    """The session factory, the store and the loaded model ``args`` name."""
    os.environ.setdefault("HOPKIT_HOME", str(BENCH_HOME))
    session_factory = DBConnection.from_config(args.db).get_session_factory()
    return session_factory, Store(session_factory), load_llm(args.llm, None)
