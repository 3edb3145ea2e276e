"""The store and model the paired checks read: qa_bench's SQLite file (or ``--db``) and an LLM config."""

from __future__ import annotations

import argparse
from typing import Any, Sequence

from hopkit.campaign.environment import LLM_NAME, use_bench_home
from hopkit.cli.numbers import integer
from hopkit.config import instantiate, load_yaml, named_config_path
from hopkit.llm.llama_cpp import LlamaCppLLM
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store


#: The multi-hop samples, the default of the scripts that read their stored runs.
MULTI_HOP = ("hotpotqa", "2wikimultihopqa", "musique")


def stored_runs_parser(doc: str, datasets: Sequence[str] = MULTI_HOP) -> argparse.ArgumentParser:
    """The command line of a script that reads stored runs: ``--datasets``, ``--limit`` (the first questions
    of each) and the store options; the script adds its own (its description: ``doc``'s first line)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(datasets))
    parser.add_argument("--limit", type=integer(), default=30, help="the first N questions of each sample")
    add_store_options(parser)
    return parser


def add_store_options(parser: argparse.ArgumentParser) -> None:
    """``--llm`` (the model config the runs were made with) and ``--db``."""
    parser.add_argument("--llm", default=LLM_NAME, help="the LLM config the runs were made with")
    parser.add_argument("--db", default=None, help="default: the sqlite file in .hopkit-bench (as qa_bench)")


def open_bench_store(args: argparse.Namespace) -> tuple[Any, Store]:
    """The session factory and the store ``args.db`` names (default: qa_bench's SQLite file)."""
    use_bench_home()
    session_factory = DBConnection.from_config(args.db).get_session_factory()
    return session_factory, Store(session_factory)


def open_store(args: argparse.Namespace) -> tuple[Any, Store, Any]:
    """The session factory, the store and the loaded model ``args`` name."""
    session_factory, store = open_bench_store(args)
    return session_factory, store, load_llm(args.llm, None)


def load_llm(name: str, threads: int | None) -> LlamaCppLLM:
    """The named llama.cpp config, with ``n_threads`` overridden when given."""
    path = named_config_path("llm", name)
    spec = load_yaml(path)
    spec.pop("cache", None)
    if threads is not None:
        spec["n_threads"] = threads
    llm = instantiate(spec, str(path), kind="llm")
    if not isinstance(llm, LlamaCppLLM):
        raise SystemExit(f"{name}: the benchmark needs a llama.cpp model, got {type(llm).__name__}")
    return llm
