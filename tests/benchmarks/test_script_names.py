"""No benchmark script or campaign module defines a function or class under a name it also imports: the
definition would shadow the import, and the script's own calls would reach the wrong one."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted([*(ROOT / "benchmarks").glob("*.py"), *(ROOT / "src" / "hopkit" / "campaign").glob("*.py")])


def shadowed_imports(source: str) -> set[str]:
    tree = ast.parse(source)
    imported = {alias.asname or alias.name.split(".")[0] for node in tree.body
                if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
    defined = {node.name for node in tree.body
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    return imported & defined


def test_the_check_finds_a_shadowed_import() -> None:
    assert shadowed_imports("from x import record\ndef record(args):\n    return record(args)\n") == {"record"}
    assert shadowed_imports("from x import record\ndef run():\n    return record(1)\n") == set()


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_no_script_shadows_what_it_imports(script: Path) -> None:
    assert shadowed_imports(script.read_text(encoding="utf-8")) == set()
