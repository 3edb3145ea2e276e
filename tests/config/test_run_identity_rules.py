"""The run identity rules of options added after runs existed (hopkit.options)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from hopkit.options import ADDED_AFTER_FIRST_RUNS, fixed_after_runs, run_options


@dataclass(frozen=True)
class _Options:
    k: int = 3
    later: bool = field(default=False, metadata=ADDED_AFTER_FIRST_RUNS)
    stop: Literal["line", "paragraph"] = field(default="paragraph", metadata=fixed_after_runs("line"))


def test_an_option_added_after_runs_enters_the_identity_only_away_from_its_default() -> None:
    assert "later" not in run_options(_Options())
    assert run_options(_Options(later=True))["later"] is True


def test_a_fixed_option_leaves_the_identity_at_the_value_the_saved_runs_had() -> None:
    assert run_options(_Options(stop="line")) == {"k": 3}
    assert run_options(_Options())["stop"] == "paragraph"
    assert run_options(_Options()) != run_options(_Options(stop="line"))
