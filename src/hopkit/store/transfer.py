"""Runs carried between stores: export a run's results to a file, import them elsewhere.

A run's id is the hash of its configuration, and its paragraph ids point into the corpus
it ran on, so a file written on one machine can be read into any store that holds the
same corpus (same fingerprint): from a laptop's SQLite file into a team's PostgreSQL, or
into a fresh clone. The file's lines are described in :mod:`hopkit.store.export_format`.

Verdicts (LLM-judged accuracy, ``hopkit judge``) travel with their runs. Importing never
loses work: a question the target store has already answered, or a verdict it already
holds, is left as it is, and a failed result never replaces an answer.

Importing reads the file twice. The first pass checks every line against the target
store: each result's and verdict's question is in the run's dataset, each paragraph id in
its corpus. One bad line refuses the whole file, naming the line, before anything is
written. The second pass writes. A file cut off in the middle is imported up to its last
whole line, and the summary says where it stops and which runs it holds; the same line
twice in one file counts once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Sequence

from hopkit.errors import StoreError
from hopkit.store.export_format import (TruncatedFile, header, line, open_text, read_records, result_line,
                                        run_line, verdict_line)
from hopkit.store.records import RunInfo, RunSpec
from hopkit.store.convert import MAX_PARAGRAPH_ID
from hopkit.store.store import Store
from hopkit.store.verdicts import VerdictStore
from hopkit.terminal import name_clash


@dataclass(frozen=True)
class SkippedRun:
    """A run in an export file that was not imported, and why."""

    run_id: str
    name: str
    reason: str


@dataclass(frozen=True)
class ImportSummary:
    """What :func:`import_runs` did with one file.

    ``runs`` and ``run_names`` are the runs it imported; ``truncated_after`` is the last whole
    line of a file that stops early (None for a whole file).
    """

    path: Path
    runs: tuple[str, ...] = ()
    results_added: int = 0
    results_kept: int = 0
    verdicts_added: int = 0
    skipped: tuple[SkippedRun, ...] = field(default_factory=tuple)
    run_names: tuple[str, ...] = ()
    truncated_after: int | None = None


def export_runs(store: Store, run_ids: Sequence[str], path: Path) -> int:
    """Write the runs, every stored result of theirs (failed ones included) and every judge's
    verdicts on them to ``path``.

    The file is written under a temporary name and moved into place, so an interrupted
    export never leaves a half-written file where a whole one was.

    Returns:
        The number of results written.

    Raises:
        StoreError: a run id is unknown, or the file cannot be written.
    """
    path = Path(path)
    partial = path.with_name(path.name + ".partial")
    written = 0
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open_text(partial, "w", compressed=path.suffix == ".gz") as out:
            out.write(header())
            for run_id in run_ids:
                run = store.run(run_id)
                out.write(line({"run": {"run_id": run.run_id, "name": run.name, "method": run.method,
                                        "dataset": run.dataset, "config": dict(run.config),
                                        "dataset_fingerprint": run.dataset_fingerprint}}))
                for result in store.results(run_id):
                    out.write(line({"result": {"run_id": run.run_id, "query_id": result.query_id,
                                               "prediction": result.prediction,
                                               "chunk_ids": list(result.chunk_ids), "trace": dict(result.trace),
                                               "usage": result.usage.to_dict(), "error": result.error}}))
                    written += 1
                out.writelines(_verdict_lines(store.verdicts, run.run_id))
        partial.replace(path)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise StoreError(f"cannot write the export file {path}: {exc}") from exc
    return written


def _verdict_lines(verdicts: VerdictStore, run_id: str) -> Iterator[str]:
    for judge_model, prompt_version in verdicts.judges([run_id]):
        for verdict in verdicts.verdicts(run_id, judge_model, prompt_version).values():
            yield line({"verdict": {"run_id": run_id, "judge_model": judge_model, "prompt_version": prompt_version,
                                    "query_id": verdict.query_id, "prediction": verdict.prediction,
                                    "correct": verdict.correct, "raw": verdict.raw}})


def _unusable(store: Store, run: RunInfo | None, spec: RunSpec, fingerprint: str) -> str:
    """Why the target store cannot take this run ("" when it can)."""
    if spec.dataset not in store.datasets():
        return f"dataset {spec.dataset!r} is not in this store: ingest it first, then import again"
    current = store.fingerprint(spec.dataset)
    if current != fingerprint:
        return (f"it ran on corpus {fingerprint[:12]} but dataset {spec.dataset!r} here is corpus "
                f"{current[:12]}: ingest the same dataset file (same options) to import it")
    if run is not None and run.dataset_fingerprint != fingerprint:
        return f"this store's run {run.run_id} ran on another corpus"
    return ""


@dataclass
class _Plan:
    """What the first pass found: the runs to import (id -> spec), those to leave out, and where
    the file stops."""

    runs: dict[str, RunSpec] = field(default_factory=dict)
    skipped: list[SkippedRun] = field(default_factory=list)
    ignored: set[str] = field(default_factory=set)
    through: int | None = None


def _check_file(store: Store, path: Path, datasets: Sequence[str] | None) -> _Plan:
    """The first pass: every line read and checked against the store; nothing written.

    Raises:
        StoreError: a line is malformed, comes before its run's line, or names a question or
            paragraph its run's dataset does not have (the file and line are named).
    """
    plan = _Plan()
    question_ids: dict[str, set[str]] = {}  # dataset -> its question ids
    paragraph_uses: dict[str, dict[int, int]] = {}  # dataset -> paragraph id -> first line using it
    stored = {run.run_id: run for run in store.runs()}
    names = {run.name for run in stored.values()}  # a new run's may not be one of these written otherwise
    try:
        for number, record in read_records(path):
            where = f"{path}, line {number}"
            if "run" in record:
                run = run_line(record["run"], where)
                if datasets is not None and run.spec.dataset not in datasets:
                    plan.ignored.add(run.run_id)
                    continue
                reason = _unusable(store, stored.get(run.run_id), run.spec, run.fingerprint)
                if not reason and run.run_id not in stored and run.run_id not in plan.runs:
                    reason = name_clash("run", run.spec.name, names)
                    names.update(() if reason else (run.spec.name,))
                if reason:
                    if run.run_id not in plan.ignored:
                        plan.skipped.append(SkippedRun(run.run_id, run.spec.name, reason))
                    plan.ignored.add(run.run_id)
                    continue
                plan.runs.setdefault(run.run_id, run.spec)
                if run.spec.dataset not in question_ids:
                    question_ids[run.spec.dataset] = {q.id for q in store.queries(run.spec.dataset)}
                continue
            if "result" in record:
                run_id, result = result_line(record["result"], where)
                query_id, chunk_ids = result.query_id, result.chunk_ids
            elif "verdict" in record:
                verdict = verdict_line(record["verdict"], where)
                run_id, query_id, chunk_ids = verdict.run_id, verdict.verdict.query_id, ()
            else:
                raise StoreError(f"{where}: expected a 'run', 'result' or 'verdict' line, "
                                 f"got key {next(iter(record))!r}")
            if run_id in plan.ignored:
                continue
            if run_id not in plan.runs:
                raise StoreError(f"{where}: a line of run {run_id} comes before the run's own line")
            dataset = plan.runs[run_id].dataset
            if query_id not in question_ids[dataset]:
                raise StoreError(f"{where}: question {query_id!r} of run {run_id} is not in dataset {dataset!r} "
                                 "here; was the file edited, or the dataset ingested with other options "
                                 "(--limit, --seed)? Nothing was imported")
            uses = paragraph_uses.setdefault(dataset, {})
            for pid in chunk_ids:
                if not 0 <= pid <= MAX_PARAGRAPH_ID:
                    raise StoreError(f"{where}: paragraph id {pid} of run {run_id} is not a paragraph id "
                                     f"(0 to {MAX_PARAGRAPH_ID}); the file was edited or damaged. "
                                     "Nothing was imported")
                uses.setdefault(pid, number)
    except TruncatedFile as cut:
        plan.through = cut.last_line
    for dataset, uses in paragraph_uses.items():
        missing = store.missing_paragraph_ids(dataset, list(uses))
        if missing:
            first = min(missing, key=uses.__getitem__)
            raise StoreError(f"{path}, line {uses[first]}: paragraph id {first} is not in the corpus of dataset {dataset!r} "
                             f"({len(missing)} unknown paragraph id(s) in all); the file was edited or damaged. "
                             "Nothing was imported")
    return plan


def import_runs(store: Store, path: Path, *, datasets: Sequence[str] | None = None) -> ImportSummary:
    """Read the runs of an export file into ``store``.

    Args:
        store: the target store; each run's dataset must be stored there with the corpus
            the run ran on (same fingerprint), else the run is skipped with the reason.
        path: a file written by :func:`export_runs`.
        datasets: import only the runs on these datasets (None: every run).

    Returns:
        What was imported, kept and skipped, and where a cut-off file stops.

    Raises:
        StoreError: the file cannot be read, or a line is malformed or names a question or
            paragraph the store does not have (names the file and line); nothing is imported then.
    """
    path = Path(path)
    plan = _check_file(store, path, datasets)
    answered: dict[str, set[str]] = {}
    for run_id, spec in plan.runs.items():
        store.ensure_run(spec)
        answered[run_id] = store.finished_query_ids(run_id)
    outcome: dict[tuple[str, str], str] = {}  # (run, question) -> "kept", "added" or "failed": counted once
    known_verdicts: dict[tuple[str, str, str], set[str]] = {}
    verdicts_added = 0
    for number, record in read_records(path, through=plan.through):
        where = f"{path}, line {number}"
        if "result" in record:
            run_id, result = result_line(record["result"], where)
            key = (run_id, result.query_id)
            if run_id in plan.ignored or (key in outcome and (outcome[key] != "failed" or not result.ok)):
                continue
            if result.query_id in answered[run_id]:
                outcome[key] = "kept"
                continue
            store.record_result(run_id, result)
            outcome[key] = "added" if result.ok else "failed"
        elif "verdict" in record:
            verdict = verdict_line(record["verdict"], where)
            judge = (verdict.run_id, verdict.judge_model, verdict.prompt_version)
            if verdict.run_id in plan.ignored:
                continue
            if judge not in known_verdicts:
                known_verdicts[judge] = set(store.verdicts.verdicts(*judge))
            if verdict.verdict.query_id not in known_verdicts[judge]:
                store.verdicts.record(*judge, verdict.verdict)
                known_verdicts[judge].add(verdict.verdict.query_id)
                verdicts_added += 1
    kept = sum(state == "kept" for state in outcome.values())
    added = len(outcome) - kept
    return ImportSummary(path, tuple(plan.runs), added, kept, verdicts_added, tuple(plan.skipped),
                         tuple(spec.name for spec in plan.runs.values()), plan.through)
