"""benchmarks/ holds standalone measurement scripts over hopkit's public API: at most 20, none imports
another (what they share is in :mod:`hopkit.campaign`), none edits ``sys.path``, and they leave the
environment to hopkit/campaign/environment.py."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
SCRIPTS = sorted(BENCHMARKS.glob("*.py"))
SIBLINGS = {path.stem for path in SCRIPTS}
MOST_SCRIPTS = 20


def problems(source: str) -> list[str]:
    """What in ``source`` breaks the rules: an import of another script (``benchmarks.X`` or a bare
    sibling), a ``sys.path`` edit, a read or write of ``os.environ`` or ``os.getenv``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module in SIBLINGS or node.module == "benchmarks" or node.module.startswith("benchmarks."):
                found.append((node.lineno, f"from {node.module} import (a script imports another)"))
        if isinstance(node, ast.Import):
            found += [(node.lineno, f"import {alias.name} (a script imports another)") for alias in node.names
                      if alias.name.startswith("benchmarks.") or alias.name in SIBLINGS]
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if (node.value.id, node.attr) in {("sys", "path"), ("os", "environ"), ("os", "getenv")}:
                found.append((node.lineno, f"{node.value.id}.{node.attr}"))
    return [f"line {line}: {what}" for line, what in sorted(found)]


def test_the_check_finds_each_kind_of_problem() -> None:
    source = ("import os, sys\nsys.path.insert(0, '.')\nfrom token_floor import Counters\n"
              "x = os.environ.get('A')\ny = os.getenv('B')\nfrom benchmarks.token_floor import Counters\n"
              "import benchmarks.scaling\nfrom hopkit.campaign.probes import Counters\n")
    assert [p.split(":")[0] for p in problems(source)] == ["line 2", "line 3", "line 4", "line 5", "line 6",
                                                           "line 7"]


def test_benchmarks_keeps_at_most_twenty_scripts() -> None:
    assert len(SCRIPTS) <= MOST_SCRIPTS, [path.name for path in SCRIPTS]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_the_script_stands_alone(script: Path) -> None:
    assert problems(script.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_the_script_imports_as_part_of_the_package(script: Path) -> None:
    name = "benchmarks" if script.stem == "__init__" else f"benchmarks.{script.stem}"
    module = importlib.import_module(name)
    assert Path(module.__file__ or "").resolve() == script.resolve()
