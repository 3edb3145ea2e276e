"""hopkit.environment: the one module that reads environment variables."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from hopkit import environment

pytestmark = pytest.mark.unit

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "hopkit"
READERS = {"environ", "environb", "getenv", "getenvb"}
ALLOWED = {
    PACKAGE / "environment.py",
}


def environment_reads(path: Path) -> list[int]:
    """Lines of ``path`` that touch ``os.environ`` / ``os.getenv`` or import them from ``os``."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if (isinstance(node, ast.Attribute) and node.attr in READERS
                and isinstance(node.value, ast.Name) and node.value.id == "os"):
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module == "os" and any(
                alias.name in READERS for alias in node.names):
            lines.append(node.lineno)
    return lines


def allowed(path: Path) -> bool:
    return any(path == entry or entry in path.parents for entry in ALLOWED)


def test_only_the_environment_module_reads_the_environment() -> None:
    offenders = [f"{path.relative_to(PACKAGE.parent)}:{line}"
                 for path in sorted(PACKAGE.rglob("*.py")) if not allowed(path)
                 for line in environment_reads(path)]
    assert offenders == [], "read environment variables through hopkit.environment"


def test_the_scan_sees_each_way_of_reading(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("import os\nfrom os import getenv\na = os.environ['X']\nb = os.getenv('Y')\n"
                      "c = os.path.join('a')\n# os.environ in a comment\n")
    assert sorted(environment_reads(source)) == [2, 3, 4]


def test_home_and_the_folders_under_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(environment.HOPKIT_HOME, str(tmp_path))
    assert environment.hopkit_home() == tmp_path
    assert environment.index_dir() == tmp_path / "indexes"
    assert environment.llm_cache_path() == tmp_path / "llm-cache.sqlite"
    for unset in (lambda: monkeypatch.delenv(environment.HOPKIT_HOME),
                  lambda: monkeypatch.setenv(environment.HOPKIT_HOME, "")):
        unset()
        assert environment.hopkit_home() == Path(".hopkit")


def test_optional_values_are_none_when_unset_or_empty(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in (environment.HOPKIT_DB_URL, environment.HOPKIT_DATA_DIR):
        monkeypatch.setenv(name, "")
    assert environment.db_url() is None and environment.data_dir() is None
    monkeypatch.setenv(environment.HOPKIT_DB_URL, "sqlite://")
    monkeypatch.setenv(environment.HOPKIT_DATA_DIR, str(tmp_path))  # a folder that exists: it is only read
    assert environment.db_url() == "sqlite://" and environment.data_dir() == tmp_path


def test_cache_dir_defaults_to_the_user_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(environment.HOPKIT_CACHE_DIR, raising=False)
    assert environment.cache_dir() == Path.home() / ".cache" / "hopkit"
    monkeypatch.setenv(environment.HOPKIT_CACHE_DIR, str(tmp_path))
    assert environment.cache_dir() == tmp_path


def test_allowed_targets_split_on_commas_and_spaces(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(environment.HOPKIT_ALLOWED_TARGETS, "a.B, c.D  e.F,")
    assert environment.allowed_targets() == ("a.B", "c.D", "e.F")
    monkeypatch.delenv(environment.HOPKIT_ALLOWED_TARGETS)
    assert environment.allowed_targets() == ()


def test_any_variable_as_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOPKIT_SOME_CONFIG_VALUE", "")
    assert environment.variable("HOPKIT_SOME_CONFIG_VALUE") == ""
    monkeypatch.delenv("HOPKIT_SOME_CONFIG_VALUE")
    assert environment.variable("HOPKIT_SOME_CONFIG_VALUE") is None
