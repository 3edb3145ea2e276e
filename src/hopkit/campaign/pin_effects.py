"""What a pinned fix would change in the saved runs, counted in their traces.

A pin (``saved_run_pins.yaml``) keeps the saved cells of a method on the behaviour they ran with
until they are run again with a fix. Before that rerun, these counts say how often the fixed rule
reads a saved trace otherwise: the nodes, queries, documents or questions where the two rules part.
They count the first place the rules part only; what a changed step would have led to after it is
not known until the rerun. The fidelity tables cite them::

    hopkit campaign pin-effects          # a Markdown table, one row a pinned fix
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from hopkit.campaign.environment import RUNS
from hopkit.methods.alce.prompts import is_irrelevant
from hopkit.store.export_format import read_records, run_line

Steps = list[dict[str, Any]]


@dataclass(frozen=True)
class SavedAnswer:
    """One saved question's answer: its run's id and the trace's summary and steps."""

    run: str
    summary: dict[str, Any]
    steps: Steps


@dataclass(frozen=True)
class Effect:
    """A pinned fix's count over a method's saved runs: ``parted`` of ``counted`` (the unit named)."""

    method: str
    option: str
    unit: str
    parted: int
    counted: int
    runs: int


def saved_answers(method: str, runs_dir: Path = RUNS) -> Iterator[SavedAnswer]:
    """The saved runs' answers of every variant of ``method`` (its runs' ``method``), file by file."""
    for path in sorted(runs_dir.glob("*.jsonl.gz")):
        run_id = None
        for number, record in read_records(path):
            if "run" in record:
                run = run_line(record["run"], f"{path}, line {number}")
                run_id = run.run_id if run.spec.method == method else None
            elif "result" in record and run_id is not None:
                trace = record["result"].get("trace") or {}
                steps = (trace.get("typed_trace") or {}).get("steps") or []
                yield SavedAnswer(run_id, trace, steps)


def _extra(step: dict[str, Any]) -> dict[str, Any]:
    return step.get("extra") or {}


def searchain_unsolved(answers: list[SavedAnswer]) -> tuple[int, int]:
    """Processed nodes whose [Unsolved Query] tag and missing answer disagree (``unsolved_by``)."""
    parted = counted = 0
    for answer in answers:
        chains = {_extra(s).get("round"): s["output"]["nodes"] for s in answer.steps
                  if s["kind"] == "reason" and isinstance(s.get("output"), dict) and "nodes" in s["output"]}
        for step in answer.steps:
            verdict = (step.get("output") or {}).get("verdict") if step["kind"] == "verify" else None
            if verdict in (None, "duplicate", "not_reached"):
                continue
            counted += 1
            nodes = chains.get(_extra(step).get("round"), [])
            position = _extra(step).get("node", 0)
            if 0 < position <= len(nodes):
                node = nodes[position - 1]
                parted += bool(node["unsolved"]) != (node["answer"] is None)
    return parted, counted


def migres_unreadable(answers: list[SavedAnswer]) -> tuple[int, int]:
    """Questions ended by an unreadable Leaf or Query response (``unreadable``)."""
    ended = sum(a.summary.get("stop_reason") in ("unreadable_leaf", "unreadable_query") for a in answers)
    return ended, len(answers)


def migres_short_queries(answers: list[SavedAnswer], least: int = 11) -> tuple[int, int]:
    """Generated queries under ``least`` characters (``min_query_chars``)."""
    queries = [query for answer in answers for step in answer.steps
               if step["kind"] == "reason" and _extra(step).get("module") == "query"
               for query in [*(step.get("output") or []), *_extra(step).get("over_limit", []),
                             *_extra(step).get("repeated", [])]]
    return sum(len(query) < least for query in queries), len(queries)


_CONDENSED = ("summary", "extraction")


def _texts(answers: list[SavedAnswer], hows: tuple[str, ...]) -> list[str]:
    """The texts of the ALCE steps that made a document shorter in one of the ways ``hows``."""
    return [step.get("output") or "" for answer in answers for step in answer.steps
            if step["kind"] == "reason" and _extra(step).get("how") in hows]


def alce_irrelevant(answers: list[SavedAnswer]) -> tuple[int, int]:
    """Summaries and extractions the authors' 'irrelevant' test and the saved runs' read otherwise
    (``irrelevant_rule``)."""
    texts = _texts(answers, _CONDENSED)
    return sum(is_irrelevant(t, "anywhere") != is_irrelevant(t, "starts") for t in texts), len(texts)


def alce_none_kept(answers: list[SavedAnswer]) -> tuple[int, int]:
    """SUMM and SNIPPET questions whose answer read no document (``none_kept``)."""
    condensing = [[_extra(s) for s in a.steps if _extra(s).get("how") in _CONDENSED] for a in answers]
    asked = [steps for steps in condensing if steps]
    return sum(not any(extra.get("kept") for extra in steps) for steps in asked), len(asked)


def alce_empty_sentences(answers: list[SavedAnswer]) -> tuple[int, int]:
    """VANILLA-s documents shown with no sentence left (``empty_sentences``)."""
    texts = _texts(answers, ("sentences",))
    return sum(not t.strip() for t in texts), len(texts)


#: (method, option, unit, counter) for each pinned fix whose effect a saved trace shows
COUNTERS: tuple[tuple[str, str, str, Callable[[list[SavedAnswer]], tuple[int, int]]], ...] = (
    ("searchain", "unsolved_by", "nodes IR processed", searchain_unsolved),
    ("migres", "unreadable", "questions", migres_unreadable),
    ("migres", "min_query_chars", "generated queries", migres_short_queries),
    ("alce", "irrelevant_rule", "summaries and extractions", alce_irrelevant),
    ("alce", "none_kept", "SUMM and SNIPPET questions", alce_none_kept),
    ("alce", "empty_sentences", "VANILLA-s documents", alce_empty_sentences),
)


def effects(runs_dir: Path = RUNS) -> list[Effect]:
    """Every counter over the saved runs in ``runs_dir``."""
    found: list[Effect] = []
    by_method: dict[str, list[SavedAnswer]] = {}
    for method, option, unit, counter in COUNTERS:
        answers = by_method.setdefault(method, list(saved_answers(method, runs_dir)))
        parted, counted = counter(answers)
        found.append(Effect(method, option, unit, parted, counted, len({a.run for a in answers})))
    return found


def table(found: list[Effect]) -> str:
    lines = ["| method | pinned option | where the rules part | of | unit | saved runs |",
             "|---|---|---:|---:|---|---:|"]
    lines += [f"| {e.method} | `{e.option}` | {e.parted:,} | {e.counted:,} | {e.unit} | {e.runs} |" for e in found]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="How often each pinned fix's rule reads the saved runs' traces "
                                                 "otherwise (benchmarks/results/runs/)")
    parser.add_argument("--runs", type=Path, default=RUNS, help="the folder of saved runs (default: %(default)s)")
    args = parser.parse_args(argv)
    print(table(effects(args.runs)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
