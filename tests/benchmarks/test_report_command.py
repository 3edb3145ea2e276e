"""hopkit/campaign/page_sections.py: the command a section records is the one that ran."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Callable

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def report(load_benchmark: Callable[[str], ModuleType]) -> ModuleType:
    return load_benchmark("page_sections")


def test_a_module_run_is_recorded_with_its_arguments_and_data_folder(report: ModuleType,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    running = SimpleNamespace(__spec__=SimpleNamespace(name="hopkit.campaign.qa_bench"))
    monkeypatch.setitem(sys.modules, "__main__", running)
    monkeypatch.setattr(sys, "argv", ["qa_bench.py", "--datasets", "hotpotqa", "2wiki multi", "--limit", "30"])
    monkeypatch.setattr(sys, "executable", str(ROOT / ".venv" / "bin" / "python"))
    if not (ROOT.parent / "shared" / "data").is_dir():
        pytest.skip("no ../shared/data beside the checkout (HOPKIT_DATA_DIR must name a folder that exists)")
    monkeypatch.setenv("HOPKIT_DATA_DIR", str(ROOT.parent / "shared" / "data"))
    assert report.command_line() == ("HOPKIT_DATA_DIR=../shared/data .venv/bin/python -m hopkit.campaign.qa_bench "
                                     "--datasets hotpotqa '2wiki multi' --limit 30")


def test_a_campaign_tool_is_recorded_as_the_hopkit_command_that_ran_it(report: ModuleType,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "__main__", SimpleNamespace(__spec__=None))
    monkeypatch.setattr(sys, "argv", [str(ROOT / ".venv" / "bin" / "hopkit"), "campaign", "paired", "--method", "migres"])
    if not (ROOT.parent / "shared" / "data").is_dir():
        pytest.skip("no ../shared/data beside the checkout (HOPKIT_DATA_DIR must name a folder that exists)")
    monkeypatch.setenv("HOPKIT_DATA_DIR", str(ROOT.parent / "shared" / "data"))
    command = report.command_line()
    assert command == "HOPKIT_DATA_DIR=../shared/data .venv/bin/hopkit campaign paired --method migres"
    assert report.tool_arguments(command, "hopkit.campaign.method_claims") == ["--method", "migres"]


def test_a_section_command_is_read_back_in_either_form(report: ModuleType) -> None:
    assert report.tool_arguments("python -m hopkit.campaign.qa_bench --limit 3", "hopkit.campaign.qa_bench") == [
        "--limit", "3"]
    assert report.tool_arguments("hopkit campaign run --limit 3", "hopkit.campaign.qa_bench") == ["--limit", "3"]
    with pytest.raises(ValueError, match="neither hopkit campaign run"):
        report.tool_arguments("hopkit campaign paired --limit 3", "hopkit.campaign.qa_bench")


def test_a_script_run_without_data_folder_names_the_script(report: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "__main__", SimpleNamespace(__spec__=None))
    monkeypatch.setattr(sys, "argv", [str(ROOT / "benchmarks" / "bm25_bench.py")])
    monkeypatch.setattr(sys, "executable", "/usr/bin/python3")
    monkeypatch.delenv("HOPKIT_DATA_DIR", raising=False)
    assert report.command_line() == "/usr/bin/python3 benchmarks/bm25_bench.py"
