"""Retired runs: a notebook section rebuilt reads the runs it reported; everything else the current ids."""

from __future__ import annotations

from pathlib import Path

import pytest

from hopkit.campaign.retired_runs import rebuilding_section, retired_run_ids, section_run_id
from hopkit.errors import ConfigError

pytestmark = pytest.mark.unit


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "retired.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_section_that_reported_a_retired_run_reads_it_and_nothing_else_does(tmp_path: Path) -> None:
    path = _file(tmp_path, "dragin/hotpotqa:\n  run: old1\n  sections: [agents-2025]\n  why: a fix\n")
    assert section_run_id("dragin", "hotpotqa", "new1", path) == "new1"            # a live page
    with rebuilding_section("agents-2025"):
        assert section_run_id("dragin", "hotpotqa", "new1", path) == "old1"
        assert section_run_id("dragin", "musique", "new2", path) == "new2"
    with rebuilding_section("agents-2026"):                                         # written after the rerun
        assert section_run_id("dragin", "hotpotqa", "new1", path) == "new1"
    assert retired_run_ids(path) == {"old1"}


def test_an_entry_without_its_reason_or_sections_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="why"):
        retired_run_ids(_file(tmp_path, "dragin/hotpotqa:\n  run: old1\n  sections: [a]\n"))


def test_the_retired_runs_are_restored_first_so_that_a_cells_newest_run_is_its_rerun(tmp_path: Path) -> None:
    from hopkit.campaign.saved_runs import saved_run_files

    retired = "ef4d0702c0eeffff"  # dragin on 2Wiki before 50e9410 (retired_runs.yaml)
    assert retired in retired_run_ids()
    for run in ("0000000000000000", retired, "3acfa3f9a3c5ca6c", "ffffffffffffffff"):
        (tmp_path / f"{run}.jsonl.gz").write_bytes(b"")
    assert [path.name.split(".")[0] for path in saved_run_files(tmp_path)] == [
        retired, "0000000000000000", "3acfa3f9a3c5ca6c", "ffffffffffffffff"]
