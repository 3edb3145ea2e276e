"""Saved runs that a change of a method retired, and the notebook sections that still report them.

A fix that changes a method's answers gives its cells new run ids; the cells are rerun under those. The
notebook's sections written before the fix report the earlier runs, which stay saved: while such a
section is rebuilt, its cells resolve to the runs it reported (``retired_runs.yaml``), so a historical
section stays what its runs give. Live pages (the leaderboard, the claims pages) always read the current
ids. A section written again after a rerun is taken off its entries' ``sections``.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path
from typing import Iterator

import yaml

from hopkit.errors import ConfigError

RETIRED_FILE = Path(__file__).with_name("retired_runs.yaml")
_SECTION: ContextVar[str | None] = ContextVar("rebuilt_section", default=None)


@cache
def _retired(path: Path = RETIRED_FILE) -> dict[str, tuple[str, frozenset[str]]]:
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    retired = {}
    for cell, entry in raw.items():
        if str(cell).startswith("_"):  # a holder of YAML anchors
            continue
        if not isinstance(entry, dict) or not isinstance(entry.get("run"), str) or not entry.get("why") \
                or not isinstance(entry.get("sections"), list):
            raise ConfigError(f"{path.name}: {cell}: expected 'run' (a run id), 'sections' (a list) and 'why'")
        retired[str(cell)] = (entry["run"], frozenset(map(str, entry["sections"])))
    return retired


@contextmanager
def rebuilding_section(name: str | None) -> Iterator[None]:
    """Within it, cells resolve as the notebook section ``name`` reported them."""
    token = _SECTION.set(name)
    try:
        yield
    finally:
        _SECTION.reset(token)


def section_run_id(variant: str, dataset: str, current: str, path: Path = RETIRED_FILE) -> str:
    """The run the section being rebuilt reported for ``variant`` on ``dataset``: the retired one where the
    section is one of its entry's, else ``current``."""
    section = _SECTION.get()
    entry = _retired(path).get(f"{variant}/{dataset}")
    if section is None or entry is None or section not in entry[1]:
        return current
    return entry[0]


def retired_run_ids(path: Path = RETIRED_FILE) -> frozenset[str]:
    """Every retired run."""
    return frozenset(run for run, _ in _retired(path).values())
