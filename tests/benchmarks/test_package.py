"""benchmarks/ is a package: its scripts import one another as ``benchmarks.<name>``, never edit
``sys.path``, and leave the environment to benchmarks/environment.py."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
SCRIPTS = sorted(BENCHMARKS.glob("*.py"))
SIBLINGS = {path.stem for path in SCRIPTS}


def problems(source: str) -> list[str]:
    """What in ``source`` breaks the package's rules: a bare sibling import, a ``sys.path`` edit,
    a read or write of ``os.environ`` or ``os.getenv``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in SIBLINGS:
            found.append((node.lineno, f"from {node.module} import (write benchmarks.{node.module})"))
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if (node.value.id, node.attr) in {("sys", "path"), ("os", "environ"), ("os", "getenv")}:
                found.append((node.lineno, f"{node.value.id}.{node.attr}"))
    return [f"line {line}: {what}" for line, what in sorted(found)]


def test_the_check_finds_each_kind_of_problem() -> None:
    source = ("import os, sys\nsys.path.insert(0, '.')\nfrom qa_bench import pipeline_for\n"
              "x = os.environ.get('A')\ny = os.getenv('B')\nfrom benchmarks.qa_bench import ingest\n")
    assert [p.split(":")[0] for p in problems(source)] == ["line 2", "line 3", "line 4", "line 5"]


@pytest.mark.parametrize("script", [s for s in SCRIPTS if s.name != "environment.py"], ids=lambda path: path.name)
def test_the_script_keeps_the_package_rules(script: Path) -> None:
    assert problems(script.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_the_script_imports_as_part_of_the_package(script: Path) -> None:
    name = "benchmarks" if script.stem == "__init__" else f"benchmarks.{script.stem}"
    module = importlib.import_module(name)
    assert Path(module.__file__ or "").resolve() == script.resolve()
