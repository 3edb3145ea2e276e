"""The prebuilt-index measurement's page (``hopkit.campaign.prebuilt_index``): the docs show what the saved
results say, and the disk's read past the page cache counts every byte of the file or says why it could not."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hopkit.campaign.prebuilt_index import disk_read_rate, prebuilt_section, wiki18_projection

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]


def saved() -> dict:
    return json.loads((ROOT / "benchmarks" / "results" / "prebuilt_index.json").read_text(encoding="utf-8"))


def test_the_docs_section_is_the_one_the_saved_results_make() -> None:
    docs = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    shown = re.search(r"<!-- bench:prebuilt-index -->\n(.*?)\n<!-- /bench:prebuilt-index -->", docs, re.S)
    assert shown is not None, "docs/benchmarks.md has no prebuilt-index section"
    assert shown.group(1).strip() == prebuilt_section(saved()).strip()


def test_the_projection_scales_the_flat_file_and_its_scan_by_the_rows_of_wiki18() -> None:
    results = saved()
    results["disk"] = {"gb_per_s": 2.0}
    text = wiki18_projection(results)
    assert "21,015,324 × 768 × 4 bytes = 64.6 GB" in text
    assert "one pass over it takes about 32 s" in text  # 64.6 GB at 2 GB/s


def test_a_disk_that_refuses_direct_reads_is_said_not_measured() -> None:
    results = saved()
    results["disk"] = {"gb_per_s": None, "why": "Invalid argument"}
    assert "could not be measured here (Invalid argument)" in wiki18_projection(results)


def test_the_direct_read_counts_the_whole_file(tmp_path: Path) -> None:
    path = tmp_path / "vectors.bin"
    path.write_bytes(bytes(range(256)) * 4096 * 5)  # 5 MiB, a whole number of pages
    rate = disk_read_rate(path)
    if rate["gb_per_s"] is None:  # a file system without O_DIRECT (tmpfs): the reason is kept
        assert rate["why"]
    else:
        assert rate["bytes"] == path.stat().st_size and rate["gb_per_s"] > 0
