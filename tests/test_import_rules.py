"""Which hopkit packages may import which: read from the source, nothing is imported."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "hopkit"


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in ``path``, relative ones resolved."""
    module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parent, base] if base else parent)
            # "from hopkit import methods" names the subpackage as an attribute
            found.extend((node.lineno, f"{base}.{alias.name}") for alias in node.names)
            found.append((node.lineno, base))
    return found


def offending_imports(folder: str, forbidden: str) -> list[str]:
    return [f"{path.relative_to(PACKAGE.parent)}:{line} imports {name}"
            for path in sorted((PACKAGE / folder).rglob("*.py"))
            for line, name in imported_modules(path)
            if name == forbidden or name.startswith(forbidden + ".")]


def test_prompts_never_import_methods() -> None:
    """Methods build on prompts, never the other way round (shared text helpers live in
    hopkit.prompts.layout)."""
    assert offending_imports("prompts", "hopkit.methods") == []


def test_the_checker_sees_absolute_relative_and_attribute_imports(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "hopkit"
    (fake / "prompts").mkdir(parents=True)
    (fake / "prompts" / "a.py").write_text("from hopkit.methods.prompting import clip_words\n")
    (fake / "prompts" / "b.py").write_text("from ..methods import ircot\n")
    (fake / "prompts" / "c.py").write_text("from hopkit import methods\nimport hopkit.methods\n")
    (fake / "prompts" / "d.py").write_text("from hopkit.methodsx import y\nfrom . import layout\n")
    monkeypatch.setitem(globals(), "PACKAGE", fake)
    assert sorted({entry.split(" imports ")[0] for entry in offending_imports("prompts", "hopkit.methods")}) == [
        "hopkit/prompts/a.py:1", "hopkit/prompts/b.py:1", "hopkit/prompts/c.py:1", "hopkit/prompts/c.py:2"]


def test_parsers_of_model_output_depend_on_nothing_in_hopkit_but_its_errors() -> None:
    """Every method parses model output with hopkit.parsing, so it must not pull in methods, LLMs or stores."""
    hopkit_imports = [f"{path.relative_to(PACKAGE.parent)}:{line} imports {name}"
                      for path in sorted((PACKAGE / "parsing").rglob("*.py"))
                      for line, name in imported_modules(path)
                      if name.startswith("hopkit.") and not name.startswith(("hopkit.parsing", "hopkit.errors"))]
    assert hopkit_imports == []


def test_the_config_reader_imports_no_pipeline_method_or_experiment() -> None:
    """hopkit.config reads and checks configs of any kind; the pipelines import it, never the other way round
    (a pipeline config's ``method:`` and ``experiment:`` are read by hopkit.pipelines.configs)."""
    path = PACKAGE / "config.py"
    assert [f"config.py:{line} imports {name}" for line, name in imported_modules(path)
            if name.split(".")[:2] in (["hopkit", "pipelines"], ["hopkit", "methods"], ["hopkit", "experiments"])] == []


@pytest.mark.parametrize(("folder", "above"), [
    ("retrieval", "hopkit.judges"),  # the rerank stage is handed its cross-encoder by the retrieval pipelines
    ("retrieval", "hopkit.pipelines"),
    ("evaluation", "hopkit.methods"),  # claims are checked above, in hopkit.claim_checks
    ("evaluation", "hopkit.scoring_runs"),
    ("evaluation", "hopkit.judging_runs"),
    ("evaluation", "hopkit.claim_checks"),
    ("pipelines", "hopkit.serving"),  # the server builds a retrieval pipeline; the pipelines use remote_retrieval
    ("remote_retrieval", "hopkit.serving"),  # the wire format and the client lie below the server and the pipelines
    ("remote_retrieval", "hopkit.pipelines"),
    ("methods", "hopkit.pipelines"),  # the run wing builds the methods, never the other way round
    ("methods", "hopkit.pipelines.experiments"),  # Adaptive-RAG is handed the declared experiments (MethodParts.experiments)
])
def test_no_import_runs_back_up_a_floor(folder: str, above: str) -> None:
    """Issue 74: the arrows that ran back up the house (a lower package importing a higher one) stay gone."""
    assert offending_imports(folder, above) == []
