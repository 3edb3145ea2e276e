"""One phase of the big-corpus benchmark, run in a process of its own so that its peak memory is its own.

    python -m benchmarks.big_corpus_phases ingest DB QUESTIONS CORPUS NAME
    python -m benchmarks.big_corpus_phases index DB NAME INDEXES
    python -m benchmarks.big_corpus_phases query DB NAME INDEXES QUERIES
    python -m benchmarks.big_corpus_phases worker DB NAME INDEXES QUERIES mmap|copy

Each prints one JSON line (a worker prints it, then waits for its standard input to close,
so that the driver can read the memory of all workers alive at once).
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path
from typing import Any

from hopkit.cli import main as hopkit
from hopkit.pipelines.retrieval.bm25 import BM25RetrievalPipeline
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.retrieval.index_store import load_or_build_from
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def folder_mib(folder: Path) -> float:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 2**20


def ingest(db: str, questions: str, corpus: str, name: str) -> dict[str, Any]:
    start = time.perf_counter()
    code = hopkit(["--db", db, "ingest", "jsonl", questions, "--name", name, "--corpus", corpus])
    if code:
        raise SystemExit(code)
    return {"seconds": time.perf_counter() - start, "peak_mib": peak_mib()}


def index(db: str, name: str, indexes: str) -> dict[str, Any]:
    start = time.perf_counter()
    pipeline = BM25RetrievalPipeline(DBConnection.from_config(db).get_session_factory(), "bm25", dataset=name,
                                     index_root=indexes)
    pipeline.retriever(name)
    return {"seconds": time.perf_counter() - start, "peak_mib": peak_mib(), "index_mib": folder_mib(Path(indexes))}


def load(db: str, name: str, indexes: str, copy: bool) -> BM25Retriever:
    corpus = Store.connect(db).corpus(name)
    if not copy:
        return load_or_build_from("bm25", corpus, Path(indexes))
    folder = next(Path(indexes).glob("bm25-*"))
    return BM25Retriever.load_from(folder, corpus, mmap=False)


def query(db: str, name: str, indexes: str, queries: str) -> dict[str, Any]:
    return timed_queries(db, name, indexes, queries, copy=False)[0]


def timed_queries(db: str, name: str, indexes: str, queries: str, copy: bool) -> tuple[dict[str, Any], BM25Retriever]:
    start = time.perf_counter()
    retriever = load(db, name, indexes, copy)
    loaded = time.perf_counter() - start
    latencies = []
    for text in Path(queries).read_text(encoding="utf-8").splitlines():
        begin = time.perf_counter()
        retriever.retrieve(text, 15)
        latencies.append(time.perf_counter() - begin)
    latencies.sort()
    return {"load_seconds": loaded, "queries": len(latencies), "mean_ms": 1000 * sum(latencies) / len(latencies),
            "p50_ms": 1000 * latencies[len(latencies) // 2], "p95_ms": 1000 * latencies[int(len(latencies) * 0.95)],
            "peak_mib": peak_mib()}, retriever


def worker(db: str, name: str, indexes: str, queries: str, mode: str) -> None:
    result, retriever = timed_queries(db, name, indexes, queries, copy=mode == "copy")
    print(json.dumps(result), flush=True)
    sys.stdin.read()  # stay alive, the index loaded, until the driver has measured every worker
    del retriever


def run(argv: list[str]) -> None:
    phase, *args = argv
    if phase == "worker":
        worker(*args)
        return
    result = {"ingest": ingest, "index": index, "query": query}[phase](*args)
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    run(sys.argv[1:])
