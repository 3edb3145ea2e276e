"""``hopkit campaign run --until-decided A:B ... --budget N``: a QA section's pairs of variants grown by batches of
questions until each pair's anytime-valid sequence decides (:mod:`hopkit.pipelines.until_decided`).

The runs grow from what the store holds (the saved runs restored: a pair the pages compared on 30 questions
starts at 30), up to ``--limit`` questions; the section is scored on the questions every pair of a dataset shares,
and opens with the stops. ``--report-only`` grows with a runner that asks nothing, which gives the stops of the
last campaign again from the stored runs (how the page's section is checked).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Callable, Sequence

from hopkit.campaign.page_sections import markdown_table
from hopkit.campaign.qa_section import Cell
from hopkit.cli.until_decided import pairs_of, print_stops, stopping_of
from hopkit.errors import ConfigError
from hopkit.pipelines.until_decided import Stopping, Track, grow, stops_table
from hopkit.report.escape import markdown_cell
from hopkit.store.store import Store

#: What a pair is two of, in the option's help and errors.
MEMBERS = "the --methods variants"


@dataclass(frozen=True)
class Grown:
    """The pairs after growing: their tracks, the stopping rule and the answers their runs hold."""

    tracks: list[Track]
    stopping: Stopping
    spent: int

    def limits(self) -> dict[str, int]:
        """Per dataset, the questions every pair on it shares: the section is scored on those."""
        limits: dict[str, int] = {}
        for track in self.tracks:
            limits[track.dataset] = min(limits.get(track.dataset, track.n), track.n)
        return limits


def pair_tracks(args: argparse.Namespace, cells: Sequence[Cell]) -> list[Track]:
    """One track per ``--until-decided`` pair and dataset on which both variants run.

    Raises:
        ConfigError: a pair is wrong (:func:`pairs_of`), or a variant of ``--methods`` is in no pair (it would not
            be run).
    """
    pairs = pairs_of(args.until_decided, args.methods, MEMBERS)
    unpaired = [method for method in args.methods if not any(method in pair for pair in pairs)]
    if unpaired:
        raise ConfigError(f"option '--until-decided': {', '.join(unpaired)} of --methods is in no pair; "
                          "with --until-decided every variant is run as one side of a pair")
    run_ids = {(cell.variant, cell.dataset): cell.run_id for cell in cells}
    return [Track(a, b, dataset, run_ids[a, dataset], run_ids[b, dataset], args.metric)
            for a, b in pairs for dataset in args.datasets if (a, dataset) in run_ids and (b, dataset) in run_ids]


def grow_pairs(store: Store, args: argparse.Namespace, cells: Sequence[Cell],
               ask: Callable[[str, str, int], int] | None) -> Grown:
    """Grow the pairs of ``cells`` (``ask(variant, dataset, limit)`` runs one side; None: ask nothing, only read the
    stops from the store) and print where each stopped."""
    tracks = pair_tracks(args, cells)
    stopping = stopping_of(args, args.limit)
    _, spent = grow(store, tracks, stopping, ask or (lambda variant, dataset, limit: 0))
    print_stops(tracks, stopping, spent)
    return Grown(tracks, stopping, spent)


def stops_block(grown: Grown) -> str:
    """The section's opening block: the rule, the answers spent and one row per pair."""
    header, rows = stops_table(grown.tracks)
    resolution = ("" if grown.stopping.resolution is None
                  else f", or once its sequence is narrower than {grown.stopping.resolution:g} points")
    return (f"Until decided: each pair grew by {grown.stopping.batch} questions at a time, in stored order, from what "
            f"its runs had answered, and stopped once its anytime-valid 95% sequence left out 0{resolution}, at "
            f"question {grown.stopping.limit} or when the next batch would pass the budget of {grown.stopping.budget} "
            f"answers; the pairs' runs hold {grown.spent}. The tables below are of the questions every pair on a "
            "dataset shares.\n\n"
            + markdown_table(list(header), ["| " + " | ".join(markdown_cell(cell) for cell in row) + " |"
                                            for row in rows]))


def section_limits(store: Store, args: argparse.Namespace, cells: Sequence[Cell],
                   ask: Callable[[str, str, int], int] | None) -> tuple[int | dict[str, int], list[str]]:
    """The questions a section is scored on and the blocks that open its body: ``--limit`` and none, or with
    ``--until-decided`` the pairs grown (by ``ask``, as :func:`grow_pairs`), their shared questions and stops."""
    if not args.until_decided:
        return args.limit, []
    grown = grow_pairs(store, args, cells, ask)
    return grown.limits(), [stops_block(grown)]
