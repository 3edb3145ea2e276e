"""``--until-decided A:B [C:D ...] --budget N --batch 10`` of ``hopkit sweep`` and ``hopkit campaign run``: the
options, and the sweep's use of :mod:`hopkit.pipelines.until_decided` (which grows the pairs).

Each pair is two of the command's configs (or variants), on each of its datasets, compared on ``--metric``; the
stops are printed and written to ``<HOPKIT_HOME>/until-decided/<key>.json``.
"""

from __future__ import annotations

import argparse
from typing import Any

from hopkit.cli.numbers import integer, number
from hopkit.environment import hopkit_home
from hopkit.errors import ConfigError
from hopkit.evaluation.scoring import METRIC_NAMES
from hopkit.pipelines.until_decided import Stopping, Track, grow, record_stops, stops_table
from hopkit.store.store import Store
from hopkit.terminal import printable

__all__ = ["add_arguments", "pairs_of", "print_stops", "run_until_decided", "stopping_of"]


def add_arguments(sweep: argparse.ArgumentParser, members: str = "the sweep's configs") -> None:
    """The options; ``members`` names what a pair is two of (in the help)."""
    sweep.add_argument("--until-decided", nargs="+", metavar="A:B",
                       help=f"pairs of {members}: grow each pair by --batch questions until its "
                            "anytime-valid sequence excludes 0, within --budget")
    sweep.add_argument("--budget", type=integer(minimum=1),
                       help="with --until-decided: the most answers the pairs' runs may store, in all")
    sweep.add_argument("--batch", type=integer(minimum=1), default=10,
                       help="with --until-decided: questions added to a pair at a time (default 10)")
    sweep.add_argument("--resolution", type=number, metavar="POINTS",
                       help="with --until-decided: also stop a pair whose sequence is narrower than POINTS")
    sweep.add_argument("--metric", default="em", choices=METRIC_NAMES,
                       help="with --until-decided: the metric a pair is decided on (default em)")


def pairs_of(values: list[str], configs: list[str], members: str = "the sweep's configs") -> list[tuple[str, str]]:
    """The ``A:B`` pairs, each naming two different ``configs`` (``members`` names them in the errors).

    Raises:
        ConfigError: a pair is not ``A:B``, names a config the command does not run, or names one twice.
    """
    pairs = []
    for value in values:
        a, colon, b = value.partition(":")
        if not colon or not a or not b or a == b:
            raise ConfigError(f"option '--until-decided': expected A:B, two different configs, got {value!r}")
        for name in (a, b):
            if name not in configs:
                raise ConfigError(f"option '--until-decided': {name!r} in {value!r} is not one of {members} "
                                  f"({', '.join(configs)}); name it among them too")
        pairs.append((a, b))
    return pairs


def run_until_decided(args: argparse.Namespace, cells: list[tuple[str, str, Any]], session_factory: Any,
                      run_cell: Any) -> int:
    """Grow the pairs batch by batch (``run_cell(config, dataset, assembly, limit)`` runs one cell's
    :class:`~hopkit.pipelines.assembly.Assembly` up to ``limit`` questions and returns its exit code); print and
    record where each stopped. Returns the exit code."""
    stopping = stopping_of(args)
    by_cell = {(config, dataset): assembly for config, dataset, assembly in cells}
    tracks = [Track(a, b, dataset, _run_id(by_cell[a, dataset]), _run_id(by_cell[b, dataset]), args.metric)
              for a, b in pairs_of(args.until_decided, args.configs) for dataset in args.datasets
              if (a, dataset) in by_cell and (b, dataset) in by_cell]
    code, spent = grow(Store(session_factory), tracks, stopping,
                       lambda config, dataset, limit: run_cell(config, dataset, by_cell[config, dataset], limit))
    print_stops(tracks, stopping, spent)
    print(f"recorded: {record_stops(tracks, stopping, spent, hopkit_home() / 'until-decided')}")
    return code


def stopping_of(args: argparse.Namespace, limit: int | None = None) -> Stopping:
    """The command's ``--budget``, ``--batch`` and ``--resolution``, and ``limit`` (the most questions a pair asks).

    Raises:
        ConfigError: ``--budget`` is missing.
    """
    if args.budget is None:
        raise ConfigError("option '--until-decided' needs '--budget N', the most answers its runs may store")
    return Stopping(args.budget, args.batch, args.resolution, limit)


def print_stops(tracks: list[Track], stopping: Stopping, spent: int) -> None:
    """The stops as a table, under a line naming the metrics and the answers spent of the budget."""
    header, rows = stops_table(tracks)
    widths = [max(len(printable(row[i])) for row in (header, *rows)) for i in range(len(header))]
    metrics = ", ".join(dict.fromkeys(track.metric for track in tracks))
    print(f"\nuntil decided on {metrics}: {spent} of {stopping.budget} answers stored by the pairs' runs")
    for row in (header, *rows):
        print("  ".join(printable(cell).ljust(width) for cell, width in zip(row, widths)).rstrip())


def _run_id(assembly: Any) -> str:
    return str(assembly.pipeline.run_spec().run_id)
