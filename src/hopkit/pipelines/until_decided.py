"""Grow pairs of runs by batches of questions until each pair's anytime-valid sequence decides, within a budget.

A pair is two runs on one dataset, compared on one metric. Both runs answer the dataset's questions in stored
order, a batch at a time (the same questions for both sides); after each batch the pair's confidence sequence
(:mod:`hopkit.evaluation.anytime`) is read over the first questions both answered, and the pair stops when it
excludes 0 (decided), when it is narrower than the resolution, or when the questions allowed run out. The whole
stops when the budget (answers stored by the pairs' runs, earlier batches and invocations counted) would be
passed. Everything is read back from the store, so an interrupted campaign resumes where it stopped, and growing
with a runner that asks nothing gives the stops of the last campaign again (a report rebuilt from stored runs).

``hopkit sweep --until-decided`` and ``hopkit campaign run --until-decided`` grow their pairs with it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Sequence

from hopkit.errors import ReportError
from hopkit.evaluation.anytime import AnytimeTest, anytime_test
from hopkit.scoring_runs import score_run
from hopkit.store.store import Store
from hopkit.terminal import printable

__all__ = ["Stopping", "Track", "grow", "record_stops", "stops_table"]

#: ``run_cell(config, dataset, limit)``: run (or resume) one side up to its first ``limit`` questions; its exit code.
RunCell = Callable[[str, str, int], int]


@dataclass(frozen=True)
class Stopping:
    """When pairs stop growing: ``budget`` answers in all, ``batch`` questions at a time, a sequence narrower than
    ``resolution`` points (None: never for width), and at most the first ``limit`` questions of a dataset."""

    budget: int
    batch: int = 10
    resolution: float | None = None
    limit: int | None = None


@dataclass
class Track:
    """One pair on one dataset and metric: its runs, the questions both have answered so far, and why it stopped."""

    a: str
    b: str
    dataset: str
    run_a: str
    run_b: str
    metric: str = "em"
    n: int = 0
    reason: str = ""
    low: float | None = None
    high: float | None = None
    decided_at: int | None = None
    anytime_p: float | None = None
    mean_a: float | None = None
    mean_b: float | None = None


def grow(store: Store, tracks: Sequence[Track], stopping: Stopping, run_cell: RunCell) -> tuple[int, int]:
    """Grow every track batch by batch until each has stopped; returns the largest exit code of ``run_cell`` and the
    answers the pairs' runs hold at the end."""
    orders = {track.dataset: [q.id for q in store.queries(track.dataset)][:stopping.limit] for track in tracks}
    known = {run.run_id for run in store.runs()}
    answered = {run_id: (_answered(store, run_id) if run_id in known else set())
                for track in tracks for run_id in (track.run_a, track.run_b)}
    for track in tracks:
        track.n = _prefix(orders[track.dataset], answered[track.run_a], answered[track.run_b])
    codes = [0]
    while active := [track for track in tracks if not track.reason]:
        for track in active:
            _check(store, track, orders[track.dataset], stopping)
        for track in (t for t in active if not t.reason):
            order = orders[track.dataset]
            limit = min(track.n + stopping.batch, len(order))
            if limit == track.n:
                track.reason = f"all {len(order)} questions asked"
                continue
            cost = sum(len(set(order[:limit]) - answered[run_id]) for run_id in {track.run_a, track.run_b})
            spent = sum(len(done) for done in answered.values())
            if spent + cost > stopping.budget:
                track.reason = f"budget spent ({spent} of {stopping.budget} answers; the next batch needs {cost})"
                continue
            print(f"until decided: {printable(track.a)} : {printable(track.b)} on {printable(track.dataset)}, "
                  f"questions {track.n + 1}-{limit}", flush=True)
            for config in (track.a, track.b):
                codes.append(run_cell(config, track.dataset, limit))
            for run_id in (track.run_a, track.run_b):
                answered[run_id] = _answered(store, run_id)
            grown = _prefix(order, answered[track.run_a], answered[track.run_b])
            if grown <= track.n:  # a question failed to store on one side: do not spin on it
                track.reason = "no new question answered by both runs (see the run log)"
            track.n = grown
    return max(codes), sum(len(done) for done in answered.values())


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


def _check(store: Store, track: Track, order: list[str], stopping: Stopping) -> None:
    """Read the pair's sequence at its n; set its stop when it decided or is narrow enough."""
    sequence = _sequence(store, track, order) if track.n else None
    if sequence is None:
        return
    track.low, track.high, track.decided_at, track.anytime_p = (sequence.low, sequence.high, sequence.decided_at,
                                                                sequence.p_value)
    if sequence.decided_at is not None:
        higher = track.a if sequence.low > 0 else track.b
        track.reason = f"decided at n = {sequence.decided_at} ({higher} higher)"
    elif stopping.resolution is not None and 100 * (sequence.high - sequence.low) < stopping.resolution:
        track.reason = f"sequence narrower than {stopping.resolution:g} points"


def _sequence(store: Store, track: Track, order: list[str]) -> AnytimeTest | None:
    first = order[:track.n]
    scored = []
    for run_id in (track.run_a, track.run_b):
        _, scores = score_run(store, store.run(run_id), set(first))
        scored.append({s.query_id: s.get(track.metric) for s in scores})
    pairs = [(scored[0][q], scored[1][q]) for q in first
             if scored[0].get(q) is not None and scored[1].get(q) is not None]
    if not pairs:
        return None
    track.mean_a, track.mean_b = (sum(side) / len(pairs) for side in zip(*pairs))
    return anytime_test([a - b for a, b in pairs])


def stops_table(tracks: Sequence[Track]) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    """The header and one row per track: pair, dataset, metric, n, both means, the sequence, its p, the stop."""
    header = ("pair", "dataset", "metric", "n", "A %", "B %", "anytime 95% CS", "anytime p", "stop")
    rows = [(f"{t.a}:{t.b}", t.dataset, t.metric, str(t.n), _percent(t.mean_a), _percent(t.mean_b),
             "-" if t.low is None or t.high is None else f"[{100 * t.low:+.1f}, {100 * t.high:+.1f}]",
             "-" if t.anytime_p is None else f"{t.anytime_p:.3f}", t.reason) for t in tracks]
    return header, rows


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def record_stops(tracks: Sequence[Track], stopping: Stopping, spent: int, folder: Path) -> Path:
    """Write the stops to ``folder/<key>.json`` (the key: the pairs' runs and metrics); returns the path.

    Raises:
        ReportError: the file cannot be written.
    """
    key = hashlib.sha256(json.dumps(sorted((t.run_a, t.run_b, t.metric) for t in tracks)).encode()).hexdigest()[:16]
    path = folder / f"{key}.json"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({**asdict(stopping), "spent": spent, "pairs": [asdict(t) for t in tracks]},
                                   indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"cannot record the stops in {path}: {exc.strerror or exc}") from exc
    return path
