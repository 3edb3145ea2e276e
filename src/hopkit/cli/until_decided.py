"""``hopkit sweep ... --until-decided A:B [C:D ...] --budget N --batch 10``: grow the named pairs of runs by
batches of questions until each pair's anytime-valid sequence decides, within a budget.

Each pair is two of the sweep's configs, on each of its datasets. Both runs answer the dataset's questions in
stored order, a batch at a time (the same questions for both sides); after each batch the pair's confidence
sequence (:mod:`hopkit.evaluation.anytime`, on ``--metric``) is read over the questions both answered, and the
pair stops when it excludes 0 (decided), when it is narrower than ``--resolution`` points, or when the dataset
has no question left. The whole stops when the budget (answers stored by the pairs' runs, all batches and
earlier invocations counted) would be passed. Everything is read back from the store, so an interrupted
campaign resumes where it stopped; the stops are printed and written to
``<HOPKIT_HOME>/until-decided/<key>.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from dataclasses import asdict, dataclass
from typing import Any

from hopkit.cli.numbers import integer, number
from hopkit.environment import hopkit_home
from hopkit.errors import ConfigError, ReportError
from hopkit.evaluation.anytime import AnytimeTest, anytime_test
from hopkit.evaluation.scoring import METRIC_NAMES
from hopkit.scoring_runs import score_run
from hopkit.store.store import Store
from hopkit.terminal import printable

__all__ = ["add_arguments", "pairs_of", "run_until_decided"]


def add_arguments(sweep: argparse.ArgumentParser) -> None:
    sweep.add_argument("--until-decided", nargs="+", metavar="A:B",
                       help="pairs of the sweep's configs: grow each pair by --batch questions until its "
                            "anytime-valid sequence excludes 0, within --budget")
    sweep.add_argument("--budget", type=integer(minimum=1),
                       help="with --until-decided: the most answers the pairs' runs may store, in all")
    sweep.add_argument("--batch", type=integer(minimum=1), default=10,
                       help="with --until-decided: questions added to a pair at a time (default 10)")
    sweep.add_argument("--resolution", type=number, metavar="POINTS",
                       help="with --until-decided: also stop a pair whose sequence is narrower than POINTS")
    sweep.add_argument("--metric", default="em", choices=METRIC_NAMES,
                       help="with --until-decided: the metric a pair is decided on (default em)")


def pairs_of(values: list[str], configs: list[str]) -> list[tuple[str, str]]:
    """The ``A:B`` pairs, each naming two different configs of the sweep.

    Raises:
        ConfigError: a pair is not ``A:B``, names a config the sweep does not run, or names one twice.
    """
    pairs = []
    for value in values:
        a, colon, b = value.partition(":")
        if not colon or not a or not b or a == b:
            raise ConfigError(f"option '--until-decided': expected A:B, two different configs, got {value!r}")
        for name in (a, b):
            if name not in configs:
                raise ConfigError(f"option '--until-decided': {name!r} in {value!r} is not one of the sweep's "
                                  f"configs ({', '.join(configs)}); name it among the configs too")
        pairs.append((a, b))
    return pairs


@dataclass
class Track:
    """One pair on one dataset: its runs, the questions both have answered so far, and why it stopped."""

    a: str
    b: str
    dataset: str
    run_a: str
    run_b: str
    n: int = 0
    reason: str = ""
    low: float | None = None
    high: float | None = None
    decided_at: int | None = None
    anytime_p: float | None = None


def _answered(store: Store, run_id: str) -> set[str]:
    return {r.query_id for r in store.results(run_id)}


def _prefix(order: list[str], *answered: set[str]) -> int:
    """How many of the first questions, in stored order, every run has answered."""
    count = 0
    for query_id in order:
        if not all(query_id in done for done in answered):
            break
        count += 1
    return count


def _sequence(store: Store, track: Track, order: list[str], metric: str) -> AnytimeTest | None:
    first = set(order[:track.n])
    scored = []
    for run_id in (track.run_a, track.run_b):
        _, scores = score_run(store, store.run(run_id), first)
        scored.append({s.query_id: s.get(metric) for s in scores})
    differences = [a - b for q in order[:track.n]
                   for a, b in [(scored[0].get(q), scored[1].get(q))] if a is not None and b is not None]
    return anytime_test(differences) if differences else None


def _check(store: Store, track: Track, order: list[str], args: argparse.Namespace) -> None:
    """Read the pair's sequence at its n; set its stop when it decided or is narrow enough."""
    sequence = _sequence(store, track, order, args.metric) if track.n else None
    if sequence is None:
        return
    track.low, track.high, track.decided_at, track.anytime_p = (sequence.low, sequence.high, sequence.decided_at,
                                                                sequence.p_value)
    if sequence.decided_at is not None:
        higher = track.a if sequence.low > 0 else track.b
        track.reason = f"decided at n = {sequence.decided_at} ({higher} higher)"
    elif args.resolution is not None and 100 * (sequence.high - sequence.low) < args.resolution:
        track.reason = f"sequence narrower than {args.resolution:g} points"


def run_until_decided(args: argparse.Namespace, cells: list[tuple[str, str, Any]], session_factory: Any,
                      run_cell: Any) -> int:
    """Grow the pairs batch by batch (``run_cell(config, dataset, assembly, limit)`` runs one cell's
    :class:`~hopkit.pipelines.assembly.Assembly` up to ``limit`` questions and returns its exit code); print and
    record where each stopped. Returns the exit code."""
    if args.budget is None:
        raise ConfigError("option '--until-decided' needs '--budget N', the most answers its runs may store")
    store = Store(session_factory)
    by_cell = {(config, dataset): assembly for config, dataset, assembly in cells}
    orders = {dataset: [q.id for q in store.queries(dataset)] for dataset in args.datasets}
    tracks = [Track(a, b, dataset, _run_id(by_cell[a, dataset]), _run_id(by_cell[b, dataset]))
              for a, b in pairs_of(args.until_decided, args.configs) for dataset in args.datasets
              if (a, dataset) in by_cell and (b, dataset) in by_cell]
    runs = {run_id for track in tracks for run_id in (track.run_a, track.run_b)}
    known = {run.run_id for run in store.runs()}
    answered = {run_id: (_answered(store, run_id) if run_id in known else set()) for run_id in runs}
    for track in tracks:
        track.n = _prefix(orders[track.dataset], answered[track.run_a], answered[track.run_b])
    codes = [0]
    while active := [track for track in tracks if not track.reason]:
        for track in active:
            _check(store, track, orders[track.dataset], args)
        for track in (t for t in active if not t.reason):
            order = orders[track.dataset]
            limit = min(track.n + args.batch, len(order))
            if limit == track.n:
                track.reason = f"all {len(order)} questions asked"
                continue
            cost = sum(len(set(order[:limit]) - answered[run_id]) for run_id in {track.run_a, track.run_b})
            spent = sum(len(done) for done in answered.values())
            if spent + cost > args.budget:
                track.reason = f"budget spent ({spent} of {args.budget} answers; the next batch needs {cost})"
                continue
            print(f"until decided: {printable(track.a)} : {printable(track.b)} on {printable(track.dataset)}, "
                  f"questions {track.n + 1}-{limit}", flush=True)
            for config in (track.a, track.b):
                codes.append(run_cell(config, track.dataset, by_cell[config, track.dataset], limit))
            for run_id in (track.run_a, track.run_b):
                answered[run_id] = _answered(store, run_id)
            grown = _prefix(order, answered[track.run_a], answered[track.run_b])
            if grown <= track.n:  # a question failed to store on one side: do not spin on it
                track.reason = "no new question answered by both runs (see the run log)"
            track.n = grown
    _report(tracks, args, sum(len(done) for done in answered.values()))
    return max(codes)


def _run_id(assembly: Any) -> str:
    return str(assembly.pipeline.run_spec().run_id)


def _report(tracks: list[Track], args: argparse.Namespace, spent: int) -> None:
    header = ("pair", "dataset", "n", f"anytime 95% CS ({args.metric})", "anytime p", "stop")
    rows = [(f"{t.a}:{t.b}", t.dataset, str(t.n),
             "-" if t.low is None or t.high is None else f"[{100 * t.low:+.1f}, {100 * t.high:+.1f}]",
             "-" if t.anytime_p is None else f"{t.anytime_p:.3f}", t.reason) for t in tracks]
    widths = [max(len(printable(row[i])) for row in (header, *rows)) for i in range(len(header))]
    print(f"\nuntil decided on {args.metric}: {spent} of {args.budget} answers stored by the pairs' runs")
    for row in (header, *rows):
        print("  ".join(printable(cell).ljust(width) for cell, width in zip(row, widths)).rstrip())
    key = hashlib.sha256(json.dumps(sorted((t.run_a, t.run_b, args.metric) for t in tracks)).encode()).hexdigest()[:16]
    path = hopkit_home() / "until-decided" / f"{key}.json"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"metric": args.metric, "budget": args.budget, "batch": args.batch,
                                    "resolution": args.resolution, "spent": spent,
                                    "pairs": [asdict(t) for t in tracks]}, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"cannot record the stops in {path}: {exc.strerror or exc}") from exc
    print(f"recorded: {path}")
