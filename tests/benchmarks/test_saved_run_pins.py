"""Pinned options keep the saved runs' configurations while a fix is the method's default."""

from __future__ import annotations

from pathlib import Path

import pytest

from hopkit.campaign.saved_run_pins import PINS_FILE, pinned_options, with_pins
from hopkit.errors import ConfigError
from hopkit.methods.registry import entries

pytestmark = pytest.mark.unit


def _pins(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "pins.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_pin_fills_the_option_a_variant_leaves_unset(tmp_path: Path) -> None:
    path = _pins(tmp_path, "oner:\n  options: {query: question}\n  why: the query fix awaits a rerun\n")
    assert with_pins({"method": "oner", "k": 5}, path) == {"method": "oner", "k": 5, "query": "question"}
    assert with_pins({"method": "oner", "query": "no_wh_words"}, path)["query"] == "no_wh_words"
    assert with_pins({"method": "ircot"}, path) == {"method": "ircot"}


def test_a_pin_without_its_reason_is_refused(tmp_path: Path) -> None:
    path = _pins(tmp_path, "oner:\n  options: {query: question}\n")
    with pytest.raises(ConfigError, match="why"):
        pinned_options("oner", path)


def test_the_shipped_pins_name_registered_methods() -> None:
    import yaml

    shipped = yaml.safe_load(PINS_FILE.read_text(encoding="utf-8")) or {}
    assert set(shipped) <= set(entries())
    for method in shipped:
        pinned_options(method)
