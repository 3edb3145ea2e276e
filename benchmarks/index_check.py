"""What checking a finished index file against its recorded CRC-32 costs (issue 70).

A finished dense or BM25 index records each file's CRC-32; the first load after a file changed reads
it whole (``hopkit.retrieval.mapped_files.matches_recorded_crc``), later loads only ``stat`` it and
read its stamp. For files of the sizes given (float32 vectors, written here, then read from the page
cache as a load right after a build would), the seconds of the whole read and of the stamped check,
each the median of ``--repeats``. Written to docs/benchmarks.md, section ``index-check``, and
``benchmarks/results/index_check.json``::

    .venv/bin/python -m benchmarks.index_check --sizes-mib 256 1024
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from hopkit.campaign.environment import ROOT
from hopkit.campaign.page_sections import command_line, markdown_table, write_section
from hopkit.retrieval import mapped_files

RESULTS = ROOT / "benchmarks" / "results" / "index_check.json"


def _write_vectors(path: Path, mib: int) -> int:
    """A file of ``mib`` MiB of float32 vectors (384 wide, as MiniLM's); its CRC-32."""
    rows = mib * 2**20 // (384 * 4)
    generator = np.random.default_rng(0)
    with open(path, "wb") as handle:
        for start in range(0, rows, 65536):
            handle.write(generator.standard_normal((min(65536, rows - start), 384), dtype=np.float32).tobytes())
    return mapped_files.file_crc32(path)


def _timed(call) -> float:
    started = time.perf_counter()
    assert call()
    return time.perf_counter() - started


def measure(mib: int, repeats: int, folder: Path) -> dict[str, float]:
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes-mib", type=int, nargs="+", default=[256, 1024])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(dir=ROOT / "benchmarks" / "results") as folder:
        rows = [measure(mib, args.repeats, Path(folder)) for mib in args.sizes_mib]
    machine = f"{os.cpu_count()} cores, {platform.python_implementation()} {platform.python_version()}"
    RESULTS.write_text(json.dumps({"command": command_line(), "machine": machine, "rows": rows}, indent=2) + "\n")
    table = markdown_table(
        ["file", "first load after a change: the whole read (s)", "GiB/s", "later loads: the stamped check (ms)"],
        [f"| {row['mib']} MiB | {row['whole_read_s']:.2f} | {row['gib_per_s']:.2f} | {row['stamped_s'] * 1000:.2f} |"
         for row in rows])
    write_section("index-check", f"""## Checking a finished index against its recorded CRC-32 (`benchmarks/index_check.py`)

`{command_line()}` ({machine}; medians of {args.repeats}; the file in the page cache, as right after a
build). A finished index is read whole once after each change of a file and stamped; every later load
only `stat`s the file and reads its stamp. Results: `benchmarks/results/index_check.json`.

{table}
""")
    print(table)


if __name__ == "__main__":
    main()
