"""Runs carried between stores: export a run's results to a file, import them elsewhere.

A run's id is the hash of its configuration, and its paragraph ids point into the corpus
it ran on, so a file written on one machine can be read into any store that holds the
same corpus (same fingerprint): from a laptop's SQLite file into a team's PostgreSQL, or
into a fresh clone. The file is JSON Lines (gzip-compressed when its name ends in
``.gz``, written with a fixed timestamp so the same results give the same bytes)::

    {"hopkit_runs": 1}
    {"run": {"run_id": ..., "name": ..., "method": ..., "dataset": ..., "config": {...},
             "dataset_fingerprint": ...}}
    {"result": {"run_id": ..., "query_id": ..., "prediction": ..., "chunk_ids": [...],
                "trace": {...}, "usage": {...}, "error": null}}
    {"verdict": {"run_id": ..., "judge_model": ..., "prompt_version": ..., "query_id": ...,
                 "prediction": ..., "correct": true, "raw": ...}}
    ...

Verdicts (LLM-judged accuracy, ``hopkit judge``) travel with their runs. Importing never
loses work: a question the target store has already answered, or a verdict it already
holds, is left as it is, and a failed result never replaces an answer.
"""

from __future__ import annotations

import gzip
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Iterator, Sequence

from hopkit.errors import StoreError, UsageError
from hopkit.store.records import QueryResult, RunInfo, RunSpec
from hopkit.store.store import Store
from hopkit.store.verdicts import StoredVerdict, VerdictStore
from hopkit.usage import Usage

FORMAT_KEY = "hopkit_runs"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class SkippedRun:
    """A run in an export file that was not imported, and why."""

    run_id: str
    name: str
    reason: str


@dataclass(frozen=True)
class ImportSummary:
    """What :func:`import_runs` did with one file."""

    path: Path
    runs: tuple[str, ...] = ()
    results_added: int = 0
    results_kept: int = 0
    verdicts_added: int = 0
    skipped: tuple[SkippedRun, ...] = field(default_factory=tuple)


def _open(path: Path, mode: str, *, compressed: bool) -> IO[str]:
    if not compressed:
        return open(path, mode + "t", encoding="utf-8")
    if mode == "r":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    raw = open(path, "wb")
    return io.TextIOWrapper(gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename=""), encoding="utf-8")


def _line(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, sort_keys=True, allow_nan=False) + "\n"


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
        with _open(partial, "w", compressed=path.suffix == ".gz") as out:
            out.write(_line({FORMAT_KEY: FORMAT_VERSION}))
            for run_id in run_ids:
                run = store.run(run_id)
                out.write(_line({"run": {"run_id": run.run_id, "name": run.name, "method": run.method,
                                         "dataset": run.dataset, "config": dict(run.config),
                                         "dataset_fingerprint": run.dataset_fingerprint}}))
                for result in store.results(run_id):
                    out.write(_line({"result": {"run_id": run.run_id, "query_id": result.query_id,
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
            yield _line({"verdict": {"run_id": run_id, "judge_model": judge_model, "prompt_version": prompt_version,
                                     "query_id": verdict.query_id, "prediction": verdict.prediction,
                                     "correct": verdict.correct, "raw": verdict.raw}})


def _records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each line of an export file as (line number, record), the header checked."""
    try:
        with _open(path, "r", compressed=path.suffix == ".gz") as lines:
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise StoreError(f"{path}, line {number}: not JSON ({exc.msg}); the export file is "
                                     "damaged: export the runs again") from exc
                if not isinstance(record, dict) or len(record) != 1:
                    raise StoreError(f"{path}, line {number}: expected one object with one key "
                                     f"('run' or 'result'), got {line[:80]!r}")
                if number == 1:
                    if record.get(FORMAT_KEY) != FORMAT_VERSION:
                        raise StoreError(f"{path}, line 1: not a hopkit run export (version {FORMAT_VERSION}); "
                                         f"it starts with {line[:80]!r}")
                    continue
                yield number, record
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise StoreError(f"cannot read the export file {path}: {exc}") from exc


def _field(record: dict[str, Any], key: str, kind: type, where: str) -> Any:
    value = record.get(key)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise StoreError(f"{where}: field {key!r} must be {kind.__name__}, got {value!r}")
    return value


def _run_spec(record: Any, where: str) -> tuple[RunSpec, str, str]:
    """The run's spec, its exported id (checked against the config's hash) and fingerprint."""
    if not isinstance(record, dict):
        raise StoreError(f"{where}: 'run' must be an object, got {record!r}")
    spec = RunSpec(name=_field(record, "name", str, where), method=_field(record, "method", str, where),
                   dataset=_field(record, "dataset", str, where), config=_field(record, "config", dict, where))
    run_id = _field(record, "run_id", str, where)
    if spec.run_id != run_id:
        raise StoreError(f"{where}: run {run_id} does not match its configuration (which hashes to "
                         f"{spec.run_id}); the file was edited or damaged: export the run again")
    return spec, run_id, _field(record, "dataset_fingerprint", str, where)


def _result(record: Any, where: str) -> tuple[str, QueryResult]:
    if not isinstance(record, dict):
        raise StoreError(f"{where}: 'result' must be an object, got {record!r}")
    chunk_ids = _field(record, "chunk_ids", list, where)
    if not all(isinstance(cid, int) and not isinstance(cid, bool) for cid in chunk_ids):
        raise StoreError(f"{where}: field 'chunk_ids' must hold integers, got {chunk_ids[:5]!r}")
    error = record.get("error")
    if error is not None and not isinstance(error, str):
        raise StoreError(f"{where}: field 'error' must be a string or null, got {error!r}")
    try:
        usage = Usage.from_dict(_field(record, "usage", dict, where))
    except UsageError as exc:
        raise StoreError(f"{where}: field 'usage': {exc}") from exc
    return _field(record, "run_id", str, where), QueryResult(
        query_id=_field(record, "query_id", str, where), prediction=_field(record, "prediction", str, where),
        chunk_ids=tuple(chunk_ids), trace=_field(record, "trace", dict, where), usage=usage, error=error)


def _verdict(record: Any, where: str) -> tuple[str, str, str, StoredVerdict]:
    if not isinstance(record, dict):
        raise StoreError(f"{where}: 'verdict' must be an object, got {record!r}")
    correct = record.get("correct")
    if correct is not None and not isinstance(correct, bool):
        raise StoreError(f"{where}: field 'correct' must be true, false or null, got {correct!r}")
    verdict = StoredVerdict(query_id=_field(record, "query_id", str, where),
                            prediction=_field(record, "prediction", str, where), correct=correct,
                            raw=_field(record, "raw", str, where))
    return (_field(record, "run_id", str, where), _field(record, "judge_model", str, where),
            _field(record, "prompt_version", str, where), verdict)


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


def import_runs(store: Store, path: Path, *, datasets: Sequence[str] | None = None) -> ImportSummary:
    """Read the runs of an export file into ``store``.

    Args:
        store: the target store; each run's dataset must be stored there with the corpus
            the run ran on (same fingerprint), else the run is skipped with the reason.
        path: a file written by :func:`export_runs`.
        datasets: import only the runs on these datasets (None: every run).

    Returns:
        What was imported, kept and skipped.

    Raises:
        StoreError: the file cannot be read or a line is malformed (names the file and line).
    """
    path = Path(path)
    imported: dict[str, set[str]] = {}  # run id -> questions already answered in the target store
    skipped: list[SkippedRun] = []
    ignored: set[str] = set()
    added = kept = verdicts_added = 0
    known_verdicts: dict[tuple[str, str, str], dict[str, StoredVerdict]] = {}
    for number, record in _records(path):
        where = f"{path}, line {number}"
        if "run" in record:
            spec, run_id, fingerprint = _run_spec(record["run"], where)
            if datasets is not None and spec.dataset not in datasets:
                ignored.add(run_id)
                continue
            existing = next((run for run in store.runs() if run.run_id == run_id), None)
            reason = _unusable(store, existing, spec, fingerprint)
            if reason:
                skipped.append(SkippedRun(run_id, spec.name, reason))
                ignored.add(run_id)
                continue
            store.ensure_run(spec)
            imported[run_id] = store.finished_query_ids(run_id)
        elif "result" in record:
            run_id, result = _result(record["result"], where)
            if run_id in ignored:
                continue
            if run_id not in imported:
                raise StoreError(f"{where}: result of run {run_id} comes before the run's own line")
            if result.query_id in imported[run_id]:
                kept += 1
                continue
            store.record_result(run_id, result)
            added += 1
        elif "verdict" in record:
            run_id, judge_model, prompt_version, verdict = _verdict(record["verdict"], where)
            if run_id in ignored:
                continue
            if run_id not in imported:
                raise StoreError(f"{where}: verdict on run {run_id} comes before the run's own line")
            judge = (run_id, judge_model, prompt_version)
            if judge not in known_verdicts:
                known_verdicts[judge] = store.verdicts.verdicts(*judge)
            if verdict.query_id not in known_verdicts[judge]:
                store.verdicts.record(run_id, judge_model, prompt_version, verdict)
                verdicts_added += 1
        else:
            raise StoreError(f"{where}: expected a 'run', 'result' or 'verdict' line, "
                             f"got key {next(iter(record))!r}")
    return ImportSummary(path, tuple(imported), added, kept, verdicts_added, tuple(skipped))
