"""A Wikipedia-size corpus: ingest, BM25 index, query latency, and the memory of 1 vs 4 workers.

The corpus is synthetic (``--paragraphs``, 5 million by default, about the 5.2 million HotpotQA
abstracts the IRCoT paper searches): titled paragraphs of 10 to 90 made-up words drawn from a
Zipf law over ``--vocabulary`` words, written as a gzipped JSONL file, then

1. ingested with ``hopkit ingest jsonl QUESTIONS --corpus CORPUS`` (streamed into the store);
2. indexed by the BM25 retrieval pipeline (built batch by batch from the store, saved);
3. queried (``--queries`` queries of 2 to 5 words, k = 15) after loading the index memory-mapped;
4. loaded by 1 and by 4 worker processes at once, each answering the queries, memory-mapped and
   (for contrast) read into memory: each worker's resident and proportional set size (PSS
   splits a page shared by N processes N ways, so the sum of PSS is what the workers cost).

Each phase runs in a process of its own (``python -m benchmarks.big_corpus phase NAME ARGS``), so its
peak memory is its own. A phase prints one JSON line (a worker prints it, then waits for its standard
input to close, so that the driver can read the memory of all workers alive at once).

    PYTHONPATH=src .venv/bin/python -m benchmarks.big_corpus [--paragraphs 5000000] [--db URL]

Writes benchmarks/results/big_corpus.json and the ``big-corpus`` section of docs/benchmarks.md.

``python -m benchmarks.big_corpus serve`` measures ``hopkit serve-retrieval`` under load over the same
corpus instead (:mod:`hopkit.campaign.serving_load`; ``serve --help``), and
``python -m benchmarks.big_corpus corpus-add`` a generated wiki-18 file of 21,015,324 passages through
``hopkit corpus add``, killed half way and resumed (:mod:`hopkit.campaign.wiki_ingest`; ``corpus-add --help``).
The corpus, the store and the index go to ``--work`` (default /tmp/hopkit-big-corpus), not the
repository.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from hopkit.campaign import serving_load, wiki_ingest
from hopkit.campaign.page_sections import command_line, markdown_table, write_section
from hopkit.campaign.environment import RESULTS as RESULTS_DIR, ROOT
from hopkit.campaign.probes import made_up_words
from hopkit.cli import main as hopkit
from hopkit.pipelines.retrieval.bm25 import BM25RetrievalPipeline
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.retrieval.index_store import load_or_build_from
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store

RESULTS = RESULTS_DIR / "big_corpus.json"
BEFORE = RESULTS_DIR / "big_corpus_03acda8.json"  # the same corpus before issue 52 (vocabulary a dict, one-pass build)
CHUNK = 100_000


def zipf_picks(rng: np.random.Generator, vocabulary: int, count: int) -> np.ndarray:
    weights = 1.0 / np.arange(1, vocabulary + 1)
    return rng.choice(vocabulary, size=count, p=weights / weights.sum())


def write_corpus(path: Path, paragraphs: int, vocabulary: int, seed: int) -> float:
    rng, words, start = np.random.default_rng(seed), made_up_words(vocabulary), time.perf_counter()
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as out:
        for first in range(0, paragraphs, CHUNK):
            size = min(CHUNK, paragraphs - first)
            lengths = rng.integers(10, 91, size=size)
            picks = zipf_picks(rng, vocabulary, int(lengths.sum()))
            ends = np.cumsum(lengths)
            lines = []
            for i, (end, length) in enumerate(zip(ends.tolist(), lengths.tolist())):
                text = " ".join(words[w] for w in picks[end - length:end].tolist())
                lines.append(json.dumps({"title": f"Article {first + i}", "text": text + "."}) + "\n")
            out.writelines(lines)
            print(f"  wrote {first + size:,} paragraphs", file=sys.stderr, flush=True)
    return time.perf_counter() - start


def write_questions(path: Path, queries: Path, vocabulary: int, count: int, seed: int) -> None:
    rng, words = np.random.default_rng(seed + 1), made_up_words(vocabulary)
    with path.open("w", encoding="utf-8") as out:
        for i in range(10):
            out.write(json.dumps({"id": f"q{i}", "question": f"Where is {words[100 + i]}?", "answers": [words[i]],
                                  "paragraphs": [{"title": f"Gold {i}", "text": f"{words[100 + i]} is {words[i]}.",
                                                  "is_supporting": True}]}) + "\n")
    lines = [" ".join(words[w] for w in zipf_picks(rng, vocabulary, int(rng.integers(2, 6))).tolist())
             for _ in range(count)]
    queries.write_text("\n".join(lines) + "\n", encoding="utf-8")


def phase(*args: str) -> dict[str, Any]:
    print(f"phase {args[0]} ...", file=sys.stderr, flush=True)
    done = subprocess.run([sys.executable, "-m", "benchmarks.big_corpus", "phase", *args], check=True,
                          stdout=subprocess.PIPE, text=True)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"  {result}", file=sys.stderr, flush=True)
    return result


def memory_of(pid: int) -> dict[str, float]:
    fields = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        key, value = line.split(":", 1)
        fields[key] = int(value.split()[0]) / 1024
    return {"rss_mib": fields["Rss"], "pss_mib": fields["Pss"]}


def workers(count: int, mode: str, base: list[str]) -> dict[str, Any]:
    print(f"{count} worker(s), {mode} ...", file=sys.stderr, flush=True)
    procs = [subprocess.Popen([sys.executable, "-m", "benchmarks.big_corpus", "phase", "worker", *base, mode],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for _ in range(count)]
    try:
        reports = [json.loads(proc.stdout.readline()) for proc in procs]  # type: ignore[union-attr]
        memory = [memory_of(proc.pid) for proc in procs]
    finally:
        for proc in procs:
            proc.communicate()
    result = {"workers": count, "mode": mode, "rss_mib_each": [m["rss_mib"] for m in memory],
              "pss_mib_total": sum(m["pss_mib"] for m in memory),
              "p50_ms": float(np.median([r["p50_ms"] for r in reports]))}
    print(f"  {result}", file=sys.stderr, flush=True)
    return result


def resumed(out: Path, settings: dict[str, Any], work: Path) -> dict[str, Any]:
    """The steps saved by an earlier run with the same settings whose files are still in ``work``."""
    if out.is_file() and (work / "corpus.jsonl.gz").is_file():
        saved: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        if all(saved.get(key) == value for key, value in settings.items()):
            return saved
    return dict(settings)


def store_size(db: str, work: Path) -> dict[str, float]:
    return {"store_mib": (work / "hopkit.db").stat().st_size / 2**20} if db.startswith("sqlite") else {}


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


BM25S_FILES = ("data.csc.index.npy", "indices.csc.index.npy", "indptr.csc.index.npy", "vocab.index.json",
               "params.index.json")


def bm25s_file_digests(indexes: Path) -> dict[str, str]:
    """SHA-256 of each file bm25s wrote for the index in ``indexes``: equal digests, the same index."""
    folder = next(indexes.glob("bm25-*"))
    digests = {}
    for name in BM25S_FILES:
        digest = hashlib.sha256()
        with (folder / name).open("rb") as file:
            while block := file.read(1 << 24):
                digest.update(block)
        digests[name] = digest.hexdigest()
    return digests


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


def run_phase(argv: list[str]) -> None:
    phase, *args = argv
    if phase == "worker":
        worker(*args)
        return
    result = {"ingest": ingest, "index": index, "query": query}[phase](*args)
    print(json.dumps(result), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--paragraphs", type=int, default=5_000_000)
    parser.add_argument("--vocabulary", type=int, default=200_000)
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", type=Path, default=Path("/tmp/hopkit-big-corpus"))
    parser.add_argument("--db", help="store URL (default: a SQLite file in --work)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--no-docs", action="store_true", help="do not write docs/benchmarks.md")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    corpus, questions, queries = args.work / "corpus.jsonl.gz", args.work / "questions.jsonl", args.work / "queries.txt"
    db = args.db or f"sqlite:///{args.work / 'hopkit.db'}"
    indexes, name = args.work / "indexes", f"synthetic-{args.paragraphs}"
    settings = {"paragraphs": args.paragraphs, "vocabulary": args.vocabulary, "seed": args.seed,
                "queries": args.queries, "store": db.split(":")[0]}
    saved = resumed(args.out, settings, args.work)
    saved["command"] = command_line()

    def keep(step: str, measure: Any) -> None:
        if step not in saved:  # a rerun with the same settings and --work resumes after the last step saved
            saved[step] = measure()
            args.out.write_text(json.dumps(saved, indent=1) + "\n", encoding="utf-8")

    keep("generate_seconds", lambda: write_corpus(corpus, args.paragraphs, args.vocabulary, args.seed))
    saved["corpus_file_mib"] = corpus.stat().st_size / 2**20
    write_questions(questions, queries, args.vocabulary, args.queries, args.seed)
    keep("ingest", lambda: {**phase("ingest", db, str(questions), str(corpus), name), **store_size(db, args.work)})
    keep("index", lambda: phase("index", db, name, str(indexes)))
    keep("index_sha256", lambda: bm25s_file_digests(indexes))
    keep("query", lambda: phase("query", db, name, str(indexes), str(queries)))
    base = [db, name, str(indexes), str(queries)]
    keep("workers", lambda: [workers(n, mode, base) for mode in ("mmap", "copy") for n in (1, 4)])
    if not args.no_docs:
        write_section("big-corpus", section(saved))


def section(saved: dict[str, Any]) -> str:
    ingest, index, query = saved["ingest"], saved["index"], saved["query"]
    rows = [f"| {w['workers']} | {w['mode']} | {', '.join(f'{r:,.0f}' for r in w['rss_mib_each'])} | "
            f"{w['pss_mib_total']:,.0f} | {w['p50_ms']:.1f} |" for w in saved["workers"]]
    return "\n".join([
        f"## A Wikipedia-size corpus: {saved['paragraphs']:,} synthetic paragraphs, BM25 over the store",
        "",
        f"A synthetic corpus of {saved['paragraphs']:,} paragraphs ({saved['vocabulary']:,}-word Zipf vocabulary, "
        f"10 to 90 words each; {saved['corpus_file_mib']:,.0f} MiB gzipped), store: {saved['store']}.",
        "",
        "`" + saved["command"] + "`",
        "",
        markdown_table(["step", "time", "peak memory", "on disk"], [
            f"| ingest (`hopkit ingest ... --corpus`) | {ingest['seconds']:,.0f} s | {ingest['peak_mib']:,.0f} MiB | "
            f"{ingest.get('store_mib', 0):,.0f} MiB store |",
            f"| BM25 index (build and save) | {index['seconds']:,.0f} s | {index['peak_mib']:,.0f} MiB | "
            f"{index['index_mib']:,.0f} MiB index |",
            f"| load the index (memory-mapped) | {query['load_seconds']:.2f} s | {query['peak_mib']:,.0f} MiB "
            f"after {query['queries']} queries | |"]),
        "",
        f"BM25 query latency (k = 15, {query['queries']} queries of 2 to 5 words, paragraph texts read from the "
        f"store): mean {query['mean_ms']:.1f} ms, median {query['p50_ms']:.1f} ms, 95th percentile "
        f"{query['p95_ms']:.1f} ms.",
        "",
        "Workers on one machine, each loading the index and answering the same queries "
        "(PSS: a page shared by N processes counts 1/N in each):",
        "",
        markdown_table(["workers", "index", "resident each (MiB)", "PSS of all (MiB)", "median query (ms)"], rows),
        *before_and_after(saved),
    ])


def own_memory_per_extra_worker(saved: dict[str, Any]) -> float:
    """What each worker past the first adds to the PSS of all, memory-mapped: its own memory."""
    pss = {w["workers"]: w["pss_mib_total"] for w in saved["workers"] if w["mode"] == "mmap"}
    return (pss[4] - pss[1]) / 3


def before_and_after(saved: dict[str, Any]) -> list[str]:
    if not BEFORE.is_file():
        return []
    before = json.loads(BEFORE.read_text(encoding="utf-8"))
    same = before.get("index_sha256") == saved.get("index_sha256") is not None
    return [
        "",
        f"Against the same corpus before issue 52 (`{before['command']}`, "
        f"`{BEFORE.relative_to(RESULTS_DIR.parent.parent)}`): the vocabulary was a dict loaded by each process "
        "and the build sorted all postings at once. bm25s's files of the two builds (scores, rows, pointers, "
        f"vocabulary, parameters) {'have the same' if same else 'do NOT have the same'} SHA-256 digests "
        "(`bm25s_file_digests`).",
        "",
        markdown_table(["", "before", "now", "goal"], [
            f"| BM25 build's peak | {before['index']['peak_mib']:,.0f} MiB | {saved['index']['peak_mib']:,.0f} MiB | "
            "≤ 4,096 MiB, the same index bit for bit |",
            f"| own memory per extra worker (memory-mapped) | {own_memory_per_extra_worker(before):,.0f} MiB | "
            f"{own_memory_per_extra_worker(saved):,.0f} MiB | ≤ 150 MiB |",
            f"| load the index | {before['query']['load_seconds']:.1f} s | {saved['query']['load_seconds']:.2f} s | |",
            f"| median query, one worker | {before['query']['p50_ms']:.1f} ms | {saved['query']['p50_ms']:.1f} ms | |"]),
    ]


_IVFPQ = "_target_: hopkit.pipelines.retrieval.dense.DenseRetrievalPipeline\nembedder: wordllama\nindex: ivfpq\n"
SERVED_CONFIGS = {  # written into --work/configs/retrieval, so the server finds the indexes built there
    "bm25": "_target_: hopkit.pipelines.retrieval.bm25.BM25RetrievalPipeline\nname: bm25\n",
    "dense-ivfpq": _IVFPQ + "name: dense-ivfpq\n",
    # the same index searched in 128 of its lists instead of half of them: less work a query, for the batching
    "dense-ivfpq-nprobe128": _IVFPQ + "name: dense-ivfpq-nprobe128\nnprobe: 128\n",
    "minilm": "_target_: hopkit.pipelines.retrieval.dense.DenseRetrievalPipeline\nname: minilm\nembedder: minilm\n"}


def serve(argv: list[str]) -> None:
    """``serve``: load on ``hopkit serve-retrieval`` over this corpus (:mod:`hopkit.campaign.serving_load`)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.big_corpus serve", description=serving_load.__doc__)
    parser.add_argument("--paragraphs", type=int, default=5_000_000)
    parser.add_argument("--vocabulary", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", type=Path, default=Path("/tmp/hopkit-big-corpus"))
    parser.add_argument("--retrievals", default="bm25,dense-ivfpq", help=f"of {', '.join(SERVED_CONFIGS)}")
    parser.add_argument("--clients", default="1,8,64,256", help="concurrent clients of each cell")
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds of load per cell")
    parser.add_argument("--workers", type=int, default=1, help="the server's worker processes")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "serving_load.json")
    parser.add_argument("--no-docs", action="store_true", help="do not write docs/benchmarks.md and docs/serving.md")
    args = parser.parse_args(argv)
    (args.work / "indexes").mkdir(parents=True, exist_ok=True)
    db, name = f"sqlite:///{args.work / 'hopkit.db'}", f"synthetic-{args.paragraphs}"
    corpus, questions, queries = (args.work / f"corpus-{args.paragraphs}.jsonl.gz", args.work / "serve-questions.jsonl",
                                  args.work / "serve-queries.txt")
    write_questions(questions, queries, args.vocabulary, 2000, args.seed)
    if name not in Store.connect(db).datasets():
        if not corpus.is_file():
            write_corpus(corpus, args.paragraphs, args.vocabulary, args.seed)
        phase("ingest", db, str(questions), str(corpus), name)
    retrievals = args.retrievals.split(",")
    for retrieval in retrievals:  # built here, with no time limit, before any server starts
        config = args.work / "configs" / "retrieval" / f"{retrieval}.yaml"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(SERVED_CONFIGS[retrieval] + f"index_root: {args.work / 'indexes'}\n", encoding="utf-8")
        subprocess.run([sys.executable, "-c", "import sys; from hopkit.cli import main; sys.exit(main())", "--db", db,
                        "index", "--dataset", name, "--retrieval", retrieval, "--quiet"], cwd=args.work, check=True)
    saved = {"command": command_line(), "dataset": name, "passages": args.paragraphs, "workers": args.workers,
             "seconds": args.seconds, "cpus": os.cpu_count(),
             "cells": serving_load.measure(db, name, retrievals, args.work,
                                           queries.read_text(encoding="utf-8").splitlines(),
                                           [int(n) for n in args.clients.split(",")], args.seconds, args.workers)}
    serving_load.save(args.out, saved)
    if not args.no_docs:
        write_section("serving-load", serving_load.section(saved))
        write_section("serving-load", serving_load.section(saved), ROOT / "docs" / "serving.md")


def corpus_add(argv: list[str]) -> None:
    """``corpus-add``: Wikipedia-size ingest through ``hopkit corpus add`` (:mod:`hopkit.campaign.wiki_ingest`)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.big_corpus corpus-add",
                                     description=wiki_ingest.__doc__.split("\n")[0])
    parser.add_argument("--passages", type=int, default=wiki_ingest.WIKI18_PASSAGES)
    parser.add_argument("--vocabulary", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kill-at", type=float, default=0.5, help="the share of passages stored at the kill -9")
    parser.add_argument("--work", type=Path, default=Path("/tmp/hopkit-wiki-ingest"))
    parser.add_argument("--keep", action="store_true", help="keep the generated file and the stores in --work")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "wiki_ingest.json")
    parser.add_argument("--no-docs", action="store_true",
                        help="do not write docs/benchmarks.md and docs/standard-setting.md")
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    saved = {"command": command_line(), **wiki_ingest.measure(args.work, args.passages, args.vocabulary, args.seed,
                                                              args.kill_at, args.keep, say)}
    args.out.write_text(json.dumps(saved, indent=1) + "\n", encoding="utf-8")
    if not args.no_docs:
        write_section("wiki-ingest", wiki_ingest.section(saved))
        write_section("wiki-ingest", wiki_ingest.standard_setting(saved), ROOT / "docs" / "standard-setting.md")
    if not args.keep:
        wiki_ingest.remove(args.work, args.passages)


MORE_SERVING = ("serving_load_4_workers.json", "serving_load_nprobe128.json", "serving_load_minilm.json")


def serve_page(argv: list[str]) -> None:
    """``serve-page``: the ``serving-load-more`` section of docs/serving.md, from the saved results of the serving
    loads run with ``--no-docs`` (4 workers, IVF-PQ searching 128 lists, MiniLM), each under its command."""
    argparse.ArgumentParser(prog="python -m benchmarks.big_corpus serve-page", description=serve_page.__doc__
                            ).parse_args(argv)
    found = [RESULTS_DIR / name for name in MORE_SERVING if (RESULTS_DIR / name).is_file()]
    if not found:
        raise SystemExit(f"none of {', '.join(MORE_SERVING)} in {RESULTS_DIR}: run their serve commands first")
    sections = [serving_load.section(json.loads(path.read_text(encoding="utf-8"))) for path in found]
    write_section("serving-load-more", "\n\n".join(sections), ROOT / "docs" / "serving.md")


if __name__ == "__main__":
    if sys.argv[1:2] == ["phase"]:
        run_phase(sys.argv[2:])
    elif sys.argv[1:2] == ["serve"]:
        serve(sys.argv[2:])
    elif sys.argv[1:2] == ["serve-page"]:
        serve_page(sys.argv[2:])
    elif sys.argv[1:2] == ["corpus-add"]:
        corpus_add(sys.argv[2:])
    else:
        main()
