"""The options the campaign's saved runs ran with, where a method's default has since been fixed.

A fix of a departure from the authors' method becomes the method's default at once (an option declared
with :func:`hopkit.options.fixed_after_runs`), while the benchmark's saved runs ran before it. Each such
option is pinned here, per method, to the value those runs had, so the campaign's pages keep reading
the saved runs (their ids are unchanged) and say which cells await a rerun with the fix. A pin is
removed once its method's cells are rerun.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any, Mapping

import yaml

from hopkit.errors import ConfigError

PINS_FILE = Path(__file__).with_name("saved_run_pins.yaml")


@cache
def _pins(path: Path = PINS_FILE) -> dict[str, dict[str, Any]]:
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{path.name}: expected a mapping of method names to pinned options")
    pins: dict[str, dict[str, Any]] = {}
    for method, entry in raw.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("options"), dict) or not entry.get("why"):
            raise ConfigError(f"{path.name}: {method}: expected 'options' (a mapping) and 'why' (the fix awaiting "
                              "a rerun)")
        pins[str(method)] = dict(entry["options"])
    return pins


def pinned_options(method: str, path: Path = PINS_FILE) -> dict[str, Any]:
    """The options pinned for ``method``'s saved runs (empty when none)."""
    return dict(_pins(path).get(method, {}))


def with_pins(config: Mapping[str, Any], path: Path = PINS_FILE) -> dict[str, Any]:
    """``config`` with its method's pinned options added where the config does not set them itself."""
    return {**pinned_options(str(config.get("method", "")), path), **config}
