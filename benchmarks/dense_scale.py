"""A dense index at Wikipedia scale: build time and peak memory, size, load time, query latency, approximation
and the memory of 4 workers, for 5 million passages.

Encoding 5 million passages with a real transformer here would take about a day, so the vectors come from
hopkit's deterministic hashing embedder at 384 dimensions (``hashing:384``: each passage's stemmed words
counted into 384 buckets, unit length), over synthetic passages of 10 to 90 made-up words drawn from a Zipf
law (the generator of ``benchmarks/big_corpus.py``), made on the fly by id rather than stored, so that
what is measured is the index: read in shards, encoded, written as float16, the IVF-PQ quantiser trained
on a sample, vectors added in batches, saved, then loaded memory-mapped.

Phases, each in a process of its own (its peak memory its own):

1. ``build``: ``load_or_build_dense(..., index="auto")`` (IVF-PQ at this size);
2. ``query``: load, then ``--queries`` queries (4 to 8 words of a passage picked at random), k = 15,
   latency p50 / p95, and the share of the exact top 15 (every vector scored) that the index finds over
   the first 50 queries (a hit scoring at least the exact 15th score counts: ties are equally right);
3. ``workers``: 4 processes load the index and answer the queries; their summed PSS (a shared page
   counted once across them) and each one's private memory.

    .venv/bin/python -m benchmarks.dense_scale [--passages 5000000] [--work /tmp/hopkit-dense-scale]

Writes benchmarks/results/dense_scale.json and the ``dense-scale`` section of docs/benchmarks.md.

With ``--check-cost MIB [MIB ...]`` it measures instead what checking a finished index file against its
recorded CRC-32 costs (``hopkit.retrieval.mapped_files.matches_recorded_crc``): float32 vectors of those
sizes, written, then read from the page cache as a load right after a build would, whole (the first load
after a change) and stamped (every later load); ``benchmarks/results/index_check.json`` and the
``index-check`` section::

    .venv/bin/python -m benchmarks.dense_scale --check-cost 256 1024

With ``--prebuilt ROWS`` it measures instead an index built elsewhere and named by ``index_path:``
(:class:`hopkit.retrieval.prebuilt.PrebuiltRetriever`): a FAISS Flat inner-product index of ``ROWS`` x 768
unit vectors and an HNSW64 one of ``--hnsw-rows`` (FlashRAG's ``index_factory(768, "Flat" / "HNSW64",
METRIC_INNER_PRODUCT)``, written with ``write_index``: the layout of Search-R1's e5 indexes of wiki-18), the
vectors hopkit's hashing embedder's at 768 dimensions over the synthetic passages; for each, the load time
memory-mapped and read whole, the first query, the query p50 and p95 (k = 15), and 4 workers' private memory
(PSS, private pages) with the index mapped. At the issue's size (1,000,000 and 200,000) it writes
``benchmarks/results/prebuilt_index.json`` and the ``prebuilt-index`` section; at another, only
``--work``/prebuilt_index.json::

    .venv/bin/python -m benchmarks.dense_scale --prebuilt 1000000 --hnsw-rows 200000
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from hopkit.campaign.page_sections import command_line, markdown_table, write_section
from hopkit.campaign.prebuilt_index import PREBUILT_DIM, PREBUILT_KINDS, disk_read_rate, prebuilt_section
from hopkit.campaign.probes import made_up_words
from hopkit.campaign.environment import RESULTS as RESULTS_DIR
from hopkit.records import Paragraph
from hopkit.retrieval import mapped_files
from hopkit.retrieval.ann import IVFPQ_RESCORE, lists_searched
from hopkit.retrieval.dense import DenseRetriever
from hopkit.retrieval.dense_store import load_or_build_dense, load_or_build_vectors
from hopkit.retrieval.embedders import HashingEmbedder

DEFAULT_PASSAGES = 5_000_000


def results_file(passages: int) -> Path:
    """``dense_scale.json`` for the default size, ``dense_scale_<passages>.json`` for another."""
    return RESULTS_DIR / ("dense_scale.json" if passages == DEFAULT_PASSAGES else f"dense_scale_{passages}.json")


def section_name(passages: int) -> str:
    return "dense-scale" if passages == DEFAULT_PASSAGES else f"dense-scale-{passages}"
VOCABULARY = 200_000
DIM = 384
CHECK_RESULTS = RESULTS_DIR / "index_check.json"
PREBUILT_SIZES = (1_000_000, 200_000)  # the issue's: Flat rows, HNSW64 rows
SWEEP = ((128, 200), (512, 1000), (1024, 1000), (1024, 2000), (2048, 1000), (2048, 2000))  # (nprobe, rescore)


class SyntheticSource:
    """``count`` made-up passages, each a function of its id alone (generated when read)."""

    def __init__(self, count: int, seed: int = 0) -> None:
        self.count = count
        self.seed = seed
        self.fingerprint = f"synthetic-{count}-{seed}"
        self.words = made_up_words(VOCABULARY)
        weights = 1.0 / np.arange(1, VOCABULARY + 1)
        self.cdf = np.cumsum(weights / weights.sum())

    def paragraph(self, pid: int) -> Paragraph:
        rng = np.random.default_rng([self.seed, pid])
        picks = np.searchsorted(self.cdf, rng.random(int(rng.integers(10, 91))))
        text = " ".join(self.words[min(i, VOCABULARY - 1)] for i in picks)
        return Paragraph(pid, f"{self.words[pid % VOCABULARY]} {pid}", text)

    def ids(self) -> np.ndarray:
        return np.arange(self.count, dtype=np.int64)

    def batches(self, size: int, after: int | None = None) -> Iterator[list[Paragraph]]:
        for start in range(0 if after is None else after + 1, self.count, size):
            yield [self.paragraph(pid) for pid in range(start, min(start + size, self.count))]

    def fetch(self, ids: Collection[int]) -> dict[int, Paragraph]:
        return {int(pid): self.paragraph(int(pid)) for pid in ids if 0 <= int(pid) < self.count}

    def ids_with_titles(self, titles: Collection[str]) -> list[int]:
        return sorted(int(t.rsplit(" ", 1)[1]) for t in titles if t.rsplit(" ", 1)[-1].isdigit())


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def folder_mib(folder: Path, pattern: str) -> float:
    return sum(path.stat().st_size for path in folder.glob(pattern)) / 2**20


def queries(passages: int, count: int) -> list[str]:
    """Queries of 4 to 8 words of a passage picked at random (a question its passage answers)."""
    source, rng = SyntheticSource(passages), np.random.default_rng(7)
    picked = [source.paragraph(int(pid)).text.split() for pid in rng.integers(0, passages, size=count)]
    return [" ".join(rng.choice(words, size=min(len(words), int(rng.integers(4, 9))), replace=False))
            for words in picked]


def retriever(passages: int, work: Path, index: str = "auto") -> DenseRetriever:
    return load_or_build_dense(SyntheticSource(passages), work / "indexes", HashingEmbedder(DIM), index=index,
                               progress=True)


def build(passages: int, work: Path) -> dict[str, Any]:
    """The vectors first (encoded and written in shards), then the structure over them (the default's)."""
    start = time.perf_counter()
    load_or_build_vectors(SyntheticSource(passages), work / "indexes", HashingEmbedder(DIM), progress=True)
    encoded = time.perf_counter()
    retriever(passages, work)
    return {"seconds": time.perf_counter() - start, "encode_seconds": encoded - start,
            "structure_seconds": time.perf_counter() - encoded, "peak_mib": peak_mib(),
            "vectors_mib": folder_mib(work / "indexes", "vectors-*/vectors.npy"),
            "index_mib": folder_mib(work / "indexes", "dense-*/index.faiss")}


def exact_kth_scores(dense: DenseRetriever, vectors: np.ndarray, k: int = 15) -> np.ndarray:
    """Every row scored for every query (blocks of rows in float32): the ``k``-th best score of each."""
    best_scores = np.full((vectors.shape[0], k), -np.inf, dtype=np.float32)
    best_rows = np.zeros((vectors.shape[0], k), dtype=np.int64)
    for start in range(0, dense.vectors.shape[0], 262_144):
        block = np.asarray(dense.vectors[start:start + 262_144], dtype=np.float32) @ vectors.T
        rows = np.argpartition(-block, k, axis=0)[:k].T + start
        scores = np.take_along_axis(block.T, rows - start, axis=1)
        merged_scores = np.concatenate([best_scores, scores], axis=1)
        merged_rows = np.concatenate([best_rows, rows], axis=1)
        keep = np.argsort(-merged_scores, axis=1)[:, :k]
        best_scores = np.take_along_axis(merged_scores, keep, axis=1)
        best_rows = np.take_along_axis(merged_rows, keep, axis=1)
    return best_scores[:, -1]


def query(passages: int, work: Path, count: int) -> dict[str, Any]:
    from hopkit.retrieval.dense import query_vector

    start = time.perf_counter()
    dense = retriever(passages, work)
    loaded = time.perf_counter() - start
    texts = queries(passages, count)
    latencies, found = [], []
    for text in texts:
        began = time.perf_counter()
        hits = dense.retrieve(text, 15)
        latencies.append(time.perf_counter() - began)
        found.append([hit.score for hit in hits])
    serving_peak = peak_mib()  # before the exact scoring below, which is the benchmark's, not hopkit's
    probe = texts[:50]
    kth = exact_kth_scores(dense, np.stack([query_vector(dense.embedder, text) for text in probe]))
    result = {"load_seconds": loaded, "p50_ms": 1000 * float(np.percentile(latencies, 50)),
              "p95_ms": 1000 * float(np.percentile(latencies, 95)), "queries": count,
              "recall_of_exact@15": recall_of_exact(found, kth), "recall_queries": len(probe), "peak_mib": serving_peak}
    result["settings"] = []
    result["nlist"] = int(dense.candidates.index.nlist) if dense.candidates and dense.candidates.kind == "ivfpq" else 0
    for nprobe, rescore in SWEEP if dense.candidates is not None and dense.candidates.kind == "ivfpq" else ():
        assert dense.candidates is not None
        dense.candidates.nprobe, dense.rescore = nprobe, rescore
        began = time.perf_counter()
        scores = [[hit.score for hit in dense.retrieve(text, 15)] for text in probe]
        result["settings"].append({"nprobe": nprobe, "rescore": rescore, "recall_of_exact@15": recall_of_exact(
            scores, kth), "mean_ms": 1000 * (time.perf_counter() - began) / len(probe)})
    return result


def recall_of_exact(found: list[list[float]], kth: np.ndarray) -> float:
    """A hit counts when it scores at least the exact 15th score: ties at that score are equally right."""
    return float(np.mean([sum(score >= bound - 1e-4 for score in scores) / 15 for scores, bound in zip(found, kth)]))


def worker(passages: int, work: Path, count: int) -> None:
    dense = retriever(passages, work)
    for text in queries(passages, count):
        dense.retrieve(text, 15)
    print("ready", flush=True)
    sys.stdin.readline()  # held until the parent has read its memory


def memory_of(pid: int) -> dict[str, float]:
    fields = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value, *_ = line.split()
        fields[name.rstrip(":")] = int(value) / 1024
    return {"rss_mib": fields["Rss"], "pss_mib": fields["Pss"], "anonymous_mib": fields.get("Anonymous", 0),
            "private_mib": fields.get("Private_Clean", 0) + fields.get("Private_Dirty", 0)}


def workers(passages: int, work: Path, count: int, number: int = 4, extra: tuple[str, ...] = ()) -> dict[str, Any]:
    command = [sys.executable, "-m", "benchmarks.dense_scale", "--phase", "worker", "--passages", str(passages),
               "--work", str(work), "--queries", str(count), *extra]
    children = [subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                for _ in range(number)]
    for child in children:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    memories = [memory_of(child.pid) for child in children]
    for child in children:
        assert child.stdin is not None
        child.stdin.write("\n")
        child.stdin.flush()
        child.wait(timeout=120)
    return {"workers": number, "pss_total_mib": sum(m["pss_mib"] for m in memories),
            "private_per_worker_mib": float(np.mean([m["private_mib"] for m in memories])),
            "rss_per_worker_mib": float(np.mean([m["rss_mib"] for m in memories]))}


def _write_vectors(path: Path, mib: int) -> int:
    """A file of ``mib`` MiB of float32 vectors (384 wide, as MiniLM's); its CRC-32."""
    rows = mib * 2**20 // (384 * 4)
    generator = np.random.default_rng(0)
    with open(path, "wb") as handle:
        for start in range(0, rows, 65536):
            handle.write(generator.standard_normal((min(65536, rows - start), 384), dtype=np.float32).tobytes())
    return mapped_files.file_crc32(path)


def _timed(call: Any) -> float:
    started = time.perf_counter()
    assert call()
    return time.perf_counter() - started


def check_cost(mib: int, repeats: int, folder: Path) -> dict[str, float]:
    """The seconds of checking a finished index file of ``mib`` MiB against its recorded CRC-32: read whole
    (the first load after a change), then stamped (every later load), each the median of ``repeats``."""
    path = folder / f"vectors-{mib}.npy"
    crc = _write_vectors(path, mib)
    time.sleep(mapped_files.RACY_SECONDS + 0.5)  # as an index finished a while ago: a check then stamps it
    whole = []
    for _ in range(repeats):
        mapped_files._checked_here.clear()
        mapped_files._stamp_path(path).unlink(missing_ok=True)
        whole.append(_timed(lambda: mapped_files.matches_recorded_crc(path, crc)))
    mapped_files._checked_here.clear()  # the stamp beside the file is what another process reads
    stamped = [_timed(lambda: mapped_files.matches_recorded_crc(path, crc)) for _ in range(repeats)]
    path.unlink()
    return {"mib": mib, "whole_read_s": statistics.median(whole), "stamped_s": statistics.median(stamped),
            "gib_per_s": mib / 1024 / statistics.median(whole)}


def check_cost_section(sizes: list[int], repeats: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        rows = [check_cost(mib, repeats, Path(folder)) for mib in sizes]
    machine = f"{os.cpu_count()} cores, {platform.python_implementation()} {platform.python_version()}"
    CHECK_RESULTS.write_text(json.dumps({"command": command_line(), "machine": machine, "rows": rows}, indent=2) + "\n")
    table = markdown_table(
        ["file", "first load after a change: the whole read (s)", "GiB/s", "later loads: the stamped check (ms)"],
        [f"| {row['mib']} MiB | {row['whole_read_s']:.2f} | {row['gib_per_s']:.2f} | {row['stamped_s'] * 1000:.2f} |"
         for row in rows])
    write_section("index-check", f"""## Checking a finished index against its recorded CRC-32 (`benchmarks/dense_scale.py --check-cost`)

`{command_line()}` ({machine}; medians of {repeats}; the file in the page cache, as right after a
build). A finished index is read whole once after each change of a file and stamped; every later load
only `stat`s the file and reads its stamp. Results: `benchmarks/results/index_check.json`.

{table}
""")
    print(table)


def prebuilt_file(work: Path, kind: str, rows: int) -> Path:
    return work / f"{kind}-{rows}.index"


def build_prebuilt(work: Path, kind: str, rows: int) -> dict[str, Any]:
    """The index as FlashRAG's builder writes it: ``index_factory``, every vector added, ``write_index``."""
    import faiss

    from hopkit.retrieval.vector_build import unit_rows

    started = time.perf_counter()
    index = faiss.index_factory(PREBUILT_DIM, PREBUILT_KINDS[kind], faiss.METRIC_INNER_PRODUCT)
    embedder = HashingEmbedder(PREBUILT_DIM)
    for batch in SyntheticSource(rows).batches(65_536):
        index.add(np.ascontiguousarray(unit_rows(embedder.embed([f"{p.title}\n{p.text}" for p in batch])),
                                       dtype=np.float32))
    faiss.write_index(index, str(prebuilt_file(work, kind, rows)))
    size = prebuilt_file(work, kind, rows).stat().st_size
    return {"seconds": time.perf_counter() - started, "file_mib": size / 2**20, "peak_mib": peak_mib()}


def prebuilt_retriever(work: Path, kind: str, rows: int, mapped: bool) -> Any:
    import faiss

    from hopkit.retrieval.prebuilt import PrebuiltRetriever, read_faiss_file
    from hopkit.retrieval.stored_view import SourceView

    path = prebuilt_file(work, kind, rows)
    index = read_faiss_file(path)[0] if mapped else faiss.read_index(str(path))
    # no paragraph cache: a first query would otherwise generate a small synthetic corpus whole
    return PrebuiltRetriever(index, SourceView(SyntheticSource(rows), cached=0), HashingEmbedder(PREBUILT_DIM))


def query_prebuilt(work: Path, kind: str, rows: int, count: int, mapped: bool) -> dict[str, Any]:
    """Load (mapped or read whole), the first query, then ``count`` queries: p50 and p95 (the page cache warm
    from the build or the run before)."""
    started = time.perf_counter()
    retriever = prebuilt_retriever(work, kind, rows, mapped)
    loaded = time.perf_counter() - started
    texts = queries(rows, count + 1)
    started = time.perf_counter()
    retriever.retrieve(texts[0], 15)
    first = time.perf_counter() - started
    latencies = []
    for text in texts[1:]:
        began = time.perf_counter()
        retriever.retrieve(text, 15)
        latencies.append(time.perf_counter() - began)
    return {"mapped": mapped, "load_seconds": loaded, "first_query_ms": 1000 * first,
            "p50_ms": 1000 * float(np.percentile(latencies, 50)), "p95_ms": 1000 * float(np.percentile(latencies, 95)),
            "queries": count, "peak_mib": peak_mib(), "anonymous_mib": memory_of(os.getpid())["anonymous_mib"]}


def prebuilt_worker(work: Path, kind: str, rows: int, count: int) -> None:
    retriever = prebuilt_retriever(work, kind, rows, mapped=True)
    for text in queries(rows, count):
        retriever.retrieve(text, 15)
    print("ready", flush=True)
    sys.stdin.readline()  # held until the parent has read its memory


def prebuilt(args: argparse.Namespace) -> None:
    sizes = {"flat": args.prebuilt, "hnsw64": args.hnsw_rows or min(args.prebuilt, PREBUILT_SIZES[1])}
    saved: dict[str, Any] = {"command": command_line(), "cores": os.cpu_count(), "dim": PREBUILT_DIM, "indexes": {}}
    for kind, rows in sizes.items():
        common = ["--prebuilt-kind", kind, "--passages", str(rows), "--work", str(args.work), "--queries",
                  str(args.queries)]
        measured: dict[str, Any] = {"rows": rows, "file_mib": 0.0}
        for name, extra in (("build", []), ("read_whole", ["--read-whole"]), ("mapped", [])):
            if name == "build" and prebuilt_file(args.work, kind, rows).exists():
                continue
            command = [sys.executable, "-m", "benchmarks.dense_scale", "--phase", "build" if name == "build"
                       else "query", *common, *extra]
            result = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True)
            measured[name] = json.loads(result.stdout.strip().splitlines()[-1])
            print(kind, name, json.dumps(measured[name]), flush=True)
        measured["file_mib"] = prebuilt_file(args.work, kind, rows).stat().st_size / 2**20
        measured["workers"] = workers(rows, args.work, args.queries, extra=("--prebuilt-kind", kind))
        print(kind, "workers", json.dumps(measured["workers"]), flush=True)
        saved["indexes"][kind] = measured
    saved["disk"] = disk_read_rate(prebuilt_file(args.work, "flat", sizes["flat"]))
    print("disk", json.dumps(saved["disk"]), flush=True)
    saved["memory_gib"] = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    full = (args.prebuilt, sizes["hnsw64"]) == PREBUILT_SIZES
    target = RESULTS_DIR / "prebuilt_index.json" if full else args.work / "prebuilt_index.json"
    target.write_text(json.dumps(saved, indent=2) + "\n", encoding="utf-8")
    if full:
        write_section("prebuilt-index", prebuilt_section(saved))
    print(prebuilt_section(saved))


def phase(name: str, args: argparse.Namespace) -> dict[str, Any]:
    command = [sys.executable, "-m", "benchmarks.dense_scale", "--phase", name, "--passages", str(args.passages),
               "--work", str(args.work), "--queries", str(args.queries)]
    result = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=DEFAULT_PASSAGES)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--work", type=Path, default=Path("/tmp/hopkit-dense-scale"))
    parser.add_argument("--phase", choices=["build", "query", "worker"], help=argparse.SUPPRESS)
    parser.add_argument("--again", nargs="+", choices=["query", "workers"],
                        help="measure these again over the index built before, keeping the saved build figures")
    parser.add_argument("--check-cost", type=int, nargs="+", metavar="MIB",
                        help="measure instead the check of a finished index file of these sizes against its CRC-32")
    parser.add_argument("--repeats", type=int, default=5, help="with --check-cost: measurements of each size")
    parser.add_argument("--prebuilt", type=int, metavar="ROWS",
                        help="measure instead a FAISS Flat index of ROWS x 768 and an HNSW64 one named by index_path")
    parser.add_argument("--hnsw-rows", type=int, help="with --prebuilt: the HNSW64 index's rows (200,000 at most "
                                                      "by default)")
    parser.add_argument("--prebuilt-kind", choices=list(PREBUILT_KINDS), help=argparse.SUPPRESS)
    parser.add_argument("--read-whole", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.check_cost:
        check_cost_section(args.check_cost, args.repeats)
        return
    args.work.mkdir(parents=True, exist_ok=True)
    if args.prebuilt_kind and args.phase:
        if args.phase == "build":
            print(json.dumps(build_prebuilt(args.work, args.prebuilt_kind, args.passages)))
        elif args.phase == "query":
            print(json.dumps(query_prebuilt(args.work, args.prebuilt_kind, args.passages, args.queries,
                                            mapped=not args.read_whole)))
        else:
            prebuilt_worker(args.work, args.prebuilt_kind, args.passages, args.queries)
        return
    if args.prebuilt:
        prebuilt(args)
        return
    if args.phase == "build":
        print(json.dumps(build(args.passages, args.work)))
        return
    if args.phase == "query":
        print(json.dumps(query(args.passages, args.work, args.queries)))
        return
    if args.phase == "worker":
        worker(args.passages, args.work, args.queries)
        return
    saved: dict[str, Any] = {"command": command_line(), "cores": os.cpu_count(), "passages": args.passages,
                             "dim": DIM}
    if args.again:
        saved = {**json.loads(results_file(args.passages).read_text(encoding="utf-8")),
                 "again": {"command": command_line(), "phases": args.again}}
    for name in ("build", "query"):
        if not args.again or name in args.again:
            saved[name] = phase(name, args)
            print(name, json.dumps(saved[name]), flush=True)
    if not args.again or "workers" in args.again:
        saved["workers"] = workers(args.passages, args.work, args.queries)
        print("workers", json.dumps(saved["workers"]), flush=True)
    results_file(args.passages).write_text(json.dumps(saved, indent=2) + "\n", encoding="utf-8")
    write_section(section_name(args.passages), section(saved))


def section(saved: dict[str, Any]) -> str:
    build_, query_, workers_ = saved["build"], saved["query"], saved["workers"]
    kind = "IVF-PQ" if query_["settings"] else "exact (flat: at most 200,000 passages)"
    rows = [
        f"| build (encode {saved['passages']:,} passages in shards{', train IVF-PQ, add' if query_['settings'] else ''}, save) | "
        f"{build_['seconds'] / 60:.1f} min: vectors {build_['encode_seconds'] / 60:.1f}, structure "
        f"{build_['structure_seconds'] / 60:.1f} | peak {build_['peak_mib'] / 1024:.2f} GiB |",
        f"| vectors (float16, {saved['dim']} dims) | {build_['vectors_mib'] / 1024:.2f} GiB on disk | memory-mapped |",
        f"| {'IVF-PQ' if query_['settings'] else 'flat (FAISS float16)'} index | {build_['index_mib']:.0f} MiB on disk | memory-mapped |",
        f"| load | {query_['load_seconds']:.1f} s | |",
        f"| query, k = 15 ({query_['queries']} queries) | p50 {query_['p50_ms']:.1f} ms, p95 {query_['p95_ms']:.1f} ms | "
        f"peak {query_['peak_mib']:.0f} MiB |",
        f"| share of the exact top 15 found ({query_['recall_queries']} queries) | "
        f"{query_['recall_of_exact@15']:.3f} | |",
        f"| {workers_['workers']} workers on one node | PSS {workers_['pss_total_mib']:.0f} MiB in all | "
        f"{workers_['private_per_worker_mib']:.0f} MiB private each |",
    ]
    return "\n\n".join([
        f"## Dense retrieval at scale: {saved['passages']:,} passages, {kind} (`benchmarks/dense_scale.py`)",
        f"Command: `{saved['command']}`  \nMachine: {saved['cores']} cores, no GPU."
        + (f"  \nMeasured again over the same index ({', '.join(saved['again']['phases'])}): "
           f"`{saved['again']['command']}`" if "again" in saved else ""),
        "The vectors come from hopkit's hashing embedder at 384 dimensions (stemmed words counted into "
        "384 buckets), not a transformer: encoding 5 million passages with MiniLM here would take about a "
        "day. The passages are synthetic (Zipf-distributed made-up words, generated by id). What is "
        "measured is the index: shards encoded and written as float16, the quantiser trained on a sample, "
        "vectors added in batches, saved atomically, loaded memory-mapped, candidates re-scored exactly.",
        markdown_table(["what", "measured", "memory"], rows),
        *([f"The defaults search half the IVF lists ({lists_searched(saved['query']['nlist']):,} of "
           f"{saved['query']['nlist']:,} here) and re-score {IVFPQ_RESCORE:,} candidates (the first "
           "row is hopkit's earlier default, 128 lists and 200 candidates). On these vectors the share of the exact top 15 found, by setting "
           "(first 50 queries):",
           markdown_table(["nprobe", "candidates re-scored", "share of the exact top 15", "mean ms per query"],
                          [f"| {s['nprobe']} | {s['rescore']} | {s['recall_of_exact@15']:.3f} | {s['mean_ms']:.1f} |"
                           for s in query_["settings"]])] if query_["settings"] else []),
    ])


if __name__ == "__main__":
    main()
