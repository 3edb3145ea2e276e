"""The benchmark scripts and the campaign's modules under test, imported as ``benchmarks.<name>`` or
``hopkit.campaign.<name>``.

pytest puts the repository root first on ``sys.path`` (``pythonpath`` in pyproject.toml), so
``benchmarks`` is this repository's package even where pysbd has installed a top-level package
of the same name; :func:`load_script` checks it.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterator

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
CAMPAIGN = {path.stem for path in (Path(__file__).resolve().parents[2] / "src" / "hopkit" / "campaign").glob("*.py")}


def load_script(name: str) -> ModuleType:
    """``hopkit.campaign.<name>`` where the package has it, else ``benchmarks/<name>.py`` as the module
    ``benchmarks.<name>``.

    Raises:
        ImportError: ``benchmarks`` is another package (the message says which file won).
    """
    if name in CAMPAIGN:
        return importlib.import_module(f"hopkit.campaign.{name}")
    package = importlib.import_module("benchmarks")
    if Path(package.__file__ or "").resolve().parent != BENCHMARKS:
        raise ImportError(f"'benchmarks' is {package.__file__}, not {BENCHMARKS}: put the repository root first "
                          "on sys.path (pytest does, from pyproject.toml's pythonpath)")
    return importlib.import_module(f"benchmarks.{name}")


@pytest.fixture(scope="session")
def load_benchmark() -> Callable[[str], ModuleType]:
    """Imports ``benchmarks.<name>`` by name."""
    return load_script


@pytest.fixture(scope="session")
def restored(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A scratch store with the samples' pooled corpora and every saved run (needs ``$HOPKIT_DATA_DIR``);
    its session factory. Its BM25 indexes go to the same folder."""
    folder = tmp_path_factory.mktemp("restored")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOPKIT_HOME", str(folder))
        yield load_script("qa_sections").restored_store(folder / "hopkit.db")
