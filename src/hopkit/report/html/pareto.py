"""The Pareto front of runs trading quality against cost."""

from __future__ import annotations

from typing import Sequence

__all__ = ["pareto_front"]


def pareto_front(points: Sequence[tuple[float, float]]) -> list[int]:
    """Indices of the points no other point dominates, cheapest first.

    A point (cost, quality) is dominated when another costs no more and scores no less, and
    is strictly better in one of the two. Equal points are all on the front.

    Args:
        points: (cost, quality) per run; lower cost and higher quality are better.

    Returns:
        The indices of the undominated points, sorted by cost (then by quality, highest first).
    """
    front = []
    for i, (cost, quality) in enumerate(points):
        dominated = any(c <= cost and q >= quality and (c < cost or q > quality)
                        for j, (c, q) in enumerate(points) if j != i)
        if not dominated:
            front.append(i)
    return sorted(front, key=lambda i: (points[i][0], -points[i][1]))
