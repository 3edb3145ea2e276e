"""A prebuilt index measured (``python -m benchmarks.dense_scale --prebuilt``): the disk's read rate past the
page cache, the ``prebuilt-index`` section of docs/benchmarks.md, and what the measured rates say of the
published wiki-18 indexes on the machine that measured them.
"""

from __future__ import annotations

import mmap
import os
import time
from pathlib import Path
from typing import Any

from hopkit.campaign.page_sections import markdown_table

PREBUILT_DIM = 768
PREBUILT_KINDS = {"flat": "Flat", "hnsw64": "HNSW64"}  # the measured kinds, by FAISS's index_factory names
WIKI18_ROWS = 21_015_324  # Search-R1's published e5 indexes of wiki-18
DIRECT_BLOCK = 16 * 2**20


def disk_read_rate(path: Path) -> dict[str, Any]:
    """How fast the disk reads ``path`` in order, past the page cache (``O_DIRECT``; None where the file system
    refuses it): what a search of a mapped index larger than the memory reads at."""
    buffer = mmap.mmap(-1, DIRECT_BLOCK)  # page-aligned, as O_DIRECT asks
    try:
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECT", 0))
    except OSError as exc:
        return {"gb_per_s": None, "why": str(exc)}
    read, started = 0, time.perf_counter()
    try:
        while True:
            count = os.readv(handle, [buffer])
            if count <= 0:
                break
            read += count
    except OSError as exc:
        return {"gb_per_s": None, "why": str(exc)}
    finally:
        os.close(handle)
    seconds = time.perf_counter() - started
    return {"gb_per_s": read / seconds / 1e9, "bytes": read, "seconds": seconds}


def wiki18_projection(saved: dict[str, Any]) -> str:
    """What the measured rates say of Search-R1's wiki-18 indexes on this machine."""
    flat, hnsw = saved["indexes"]["flat"], saved["indexes"]["hnsw64"]
    flat_bytes = WIKI18_ROWS * PREBUILT_DIM * 4
    hnsw_bytes = hnsw["file_mib"] * 2**20 / hnsw["rows"] * WIKI18_ROWS
    compute_s = flat["mapped"]["p50_ms"] / 1000 * WIKI18_ROWS / flat["rows"]
    rate = saved["disk"]["gb_per_s"]
    memory = saved["memory_gib"]
    scan = (f"at the disk's {rate:.2f} GB/s measured here (the 1M Flat file read past the page cache, `O_DIRECT`), "
            f"one pass over it takes about {flat_bytes / 1e9 / rate:.0f} s") if rate else \
        f"the disk's rate could not be measured here ({saved['disk'].get('why')})"
    return (f"**Projected to wiki-18 (21,015,324 rows) on this {memory:.0f} GiB machine.** The published Flat index is "
            f"21,015,324 × 768 × 4 bytes = {flat_bytes / 1e9:.1f} GB ({flat_bytes / 2**30:.1f} GiB); at the bytes a "
            f"row the 200,000-row HNSW64 file takes, the published HNSW64 one is about {hnsw_bytes / 1e9:.0f} GB. "
            f"Mapped, either loads in well under a second and costs each worker about the private memory above, but "
            f"neither fits in {memory:.0f} GiB, so the page cache cannot keep it: a Flat search reads the whole file "
            f"from disk each time ({scan}), on top of about {compute_s:.1f} s of scoring a query on "
            f"{saved['cores']} cores (the 1M p50 times 21.0, as a Flat search is linear in rows); an HNSW64 search "
            "reads its visited nodes from disk at random, which this benchmark did not measure. So the published "
            "indexes want a machine whose memory holds the file (a GPU node's, as their authors used); on this "
            "one, wiki-18 takes hopkit's own `ivfpq` index over the stored corpus (docs/retrieval.md), whose codes "
            f"(dim/8 bytes a passage: {WIKI18_ROWS * PREBUILT_DIM // 8 / 1e9:.1f} GB at 768 dimensions) stay in "
            "memory.")


def prebuilt_section(saved: dict[str, Any]) -> str:
    rows = []
    for kind, m in saved["indexes"].items():
        whole, mapped, crew = m["read_whole"], m["mapped"], m["workers"]
        file_gib = m["file_mib"] / 1024
        rows.append(f"| {PREBUILT_KINDS[kind]} | {m['rows']:,} | {file_gib:.2f} GiB "
                    f"| {mapped['load_seconds']:.2f} s / {whole['load_seconds']:.2f} s "
                    f"| {mapped['first_query_ms']:.0f} ms "
                    f"| {mapped['p50_ms']:.1f} ms ({mapped['p95_ms']:.1f}) / {whole['p50_ms']:.1f} ms "
                    f"| {mapped['anonymous_mib']:.0f} MiB / {whole['anonymous_mib']:.0f} MiB "
                    f"| {crew['private_per_worker_mib']:.0f} MiB | {crew['pss_total_mib']:.0f} MiB |")
    table = markdown_table(["index", "rows", "file", "load: mapped / read whole", "first query (mapped)",
                            "query p50 (p95), k = 15: mapped / read whole",
                            "a process's anonymous memory: mapped / read whole",
                            "private memory per worker (4, mapped)",
                            "PSS of the 4"], rows)
    return (f"## A prebuilt index by `index_path:` (`benchmarks/dense_scale.py --prebuilt`)\n\nCommand: "
            f"`{saved['command']}`  \nMachine: {saved['cores']} cores, no GPU; the page cache warm (the file written "
            "just before). Vectors: hopkit's hashing embedder at 768 dimensions over synthetic passages, unit "
            "length, in FlashRAG's layout (`index_factory(768, \"Flat\" / \"HNSW64\", METRIC_INNER_PRODUCT)`, "
            "`write_index`); the query embedder is the same hashing one, so a worker's memory holds no model "
            f"(e5-base-v2 would add its 110M parameters to each).\n\n{table}\n\n{wiki18_projection(saved)}")
