"""The check that a method's trace is one chain: each step follows the one recorded just before it."""

from __future__ import annotations

from typing import Sequence

from hopkit.traces import Step


def assert_chained(steps: Sequence[Step]) -> None:
    """Every step's parent is the step before it (the first has none)."""
    assert [step.parent for step in steps] == [None, *[step.id for step in steps[:-1]]], \
        [(step.id, step.kind, step.parent) for step in steps]
