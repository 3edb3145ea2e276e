"""How the plots tell runs apart: a colour per run, and past the palette's eight colours a second mark.

Okabe and Ito's colour-blind-safe palette has eight colours. A comparison of more runs (the baselines'
table has fourteen) reuses them; the ninth run on gets the first run's colour with a hatched bar, a
square marker or a square point, so no two of the first 32 runs look alike.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PALETTE", "RunMark", "run_mark"]

PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
#: One per pass through the palette: the bar hatch, the matplotlib marker and the SVG point's shape.
_SECOND_MARKS = (("", "o", "circle"), ("///", "s", "square"), ("...", "^", "triangle"), ("xxx", "D", "diamond"))


@dataclass(frozen=True)
class RunMark:
    """How the run at one position in a plot is drawn."""

    colour: str
    hatch: str
    marker: str
    shape: str


def run_mark(position: int) -> RunMark:
    """The colour and second mark of the run at ``position`` (0-based) in a plot's legend."""
    if position < 0:
        raise ValueError(f"run_mark: position must be 0 or more, got {position}")
    hatch, marker, shape = _SECOND_MARKS[(position // len(PALETTE)) % len(_SECOND_MARKS)]
    return RunMark(PALETTE[position % len(PALETTE)], hatch, marker, shape)
