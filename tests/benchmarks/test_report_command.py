"""benchmarks/_report.py: the command a section records is the one that ran."""

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
    return load_benchmark("_report")


def test_a_module_run_is_recorded_with_its_arguments_and_data_folder(report: ModuleType,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    running = SimpleNamespace(__spec__=SimpleNamespace(name="benchmarks.qa_bench"))
    monkeypatch.setitem(sys.modules, "__main__", running)
    monkeypatch.setattr(sys, "argv", ["qa_bench.py", "--datasets", "hotpotqa", "2wiki multi", "--limit", "30"])
    monkeypatch.setattr(sys, "executable", str(ROOT / ".venv" / "bin" / "python"))
    monkeypatch.setenv("HOPKIT_DATA_DIR", str(ROOT.parent / "shared" / "data"))
    assert report.command_line() == ("HOPKIT_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.qa_bench "
                                     "--datasets hotpotqa '2wiki multi' --limit 30")


def test_a_script_run_without_data_folder_names_the_script(report: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "__main__", SimpleNamespace(__spec__=None))
    monkeypatch.setattr(sys, "argv", [str(ROOT / "benchmarks" / "bm25_bench.py")])
    monkeypatch.setattr(sys, "executable", "/usr/bin/python3")
    monkeypatch.delenv("HOPKIT_DATA_DIR", raising=False)
    assert report.command_line() == "/usr/bin/python3 benchmarks/bm25_bench.py"
