"""The run export file: JSON Lines (gzip when its name ends in ``.gz``), written and read line by line.

::

    {"hopkit_runs": 1}
    {"run": {"run_id": ..., "name": ..., "method": ..., "dataset": ..., "config": {...},
             "dataset_fingerprint": ...}}
    {"result": {"run_id": ..., "query_id": ..., "prediction": ..., "chunk_ids": [...],
                "trace": {...}, "usage": {...}, "error": null}}
    {"verdict": {"run_id": ..., "judge_model": ..., "prompt_version": ..., "query_id": ...,
                 "prediction": ..., "correct": true, "raw": ...}}

Reading checks each line's shape and types and names the file and line of the first that
is wrong. A file that stops in the middle of a line, or a gzip stream that stops before its
end, was cut off (a copy or a write that did not finish): :class:`TruncatedFile` says after
which whole line.
"""

from __future__ import annotations

import gzip
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Iterator

from hopkit.errors import ConfigError, StoreError, UsageError
from hopkit.store.records import QueryResult, RunSpec
from hopkit.store.storable import storable_text
from hopkit.store.verdicts import StoredVerdict
from hopkit.usage import Usage

FORMAT_KEY = "hopkit_runs"
FORMAT_VERSION = 1


class TruncatedFile(Exception):
    """The export file stops before its end; ``last_line`` is the last whole line read."""

    def __init__(self, path: Path, last_line: int) -> None:
        super().__init__(f"{path} stops after line {last_line} (cut off while written or copied)")
        self.path = path
        self.last_line = last_line


@dataclass(frozen=True)
class RunLine:
    """A run's line: its spec, its exported id (checked against the spec's hash) and its corpus."""

    spec: RunSpec
    run_id: str
    fingerprint: str


@dataclass(frozen=True)
class VerdictLine:
    """A verdict's line: the run, the judge (model id, prompt version) and the verdict."""

    run_id: str
    judge_model: str
    prompt_version: str
    verdict: StoredVerdict


def open_text(path: Path, mode: str, *, compressed: bool) -> IO[str]:
    """The file as text; written gzip streams carry no time stamp or name, so equal content gives equal bytes."""
    if not compressed:
        return open(path, mode + "t", encoding="utf-8")
    if mode == "r":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    raw = open(path, "wb")
    return io.TextIOWrapper(gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename=""), encoding="utf-8")


def line(record: dict[str, Any]) -> str:
    """One record as its line."""
    return json.dumps(record, ensure_ascii=False, sort_keys=True, allow_nan=False) + "\n"


def header() -> str:
    """The file's first line."""
    return line({FORMAT_KEY: FORMAT_VERSION})


def read_records(path: Path, *, through: int | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each line after the header as (line number, record), up to line ``through`` if given.

    Raises:
        TruncatedFile: the file stops in the middle of a line or of its gzip stream.
        StoreError: the file cannot be read, is not an export, or a line is not one JSON
            object with one key (names the file and line).
    """
    number = 0
    try:
        with open_text(path, "r", compressed=path.suffix == ".gz") as lines:
            for number, text in enumerate(lines, start=1):
                if through is not None and number > through:
                    return
                if not text.strip():
                    continue
                try:
                    record = json.loads(text)
                except json.JSONDecodeError as exc:
                    if not text.endswith("\n"):
                        raise TruncatedFile(path, number - 1) from None
                    raise StoreError(f"{path}, line {number}: not JSON ({exc.msg}); the export file is "
                                     "damaged: export the runs again") from None
                if not isinstance(record, dict) or len(record) != 1:
                    raise StoreError(f"{path}, line {number}: expected one object with one key "
                                     f"('run', 'result' or 'verdict'), got {text[:80]!r}")
                if number == 1:
                    if record.get(FORMAT_KEY) != FORMAT_VERSION:
                        raise StoreError(f"{path}, line 1: not a hopkit run export (version {FORMAT_VERSION}); "
                                         f"it starts with {text[:80]!r}")
                    continue
                yield number, record
    except EOFError:  # gzip: the stream ends before its end marker; the lines yielded were whole
        if through is not None and number >= through:
            return
        raise TruncatedFile(path, number) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise StoreError(f"cannot read the export file {path}: {exc}") from exc


def _field(record: dict[str, Any], key: str, kind: type, where: str) -> Any:
    value = record.get(key)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise StoreError(f"{where}: field {key!r} must be {kind.__name__}, got {value!r}")
    return value


def _text(record: dict[str, Any], key: str, where: str) -> str:
    return storable_text(_field(record, key, str, where))


def run_line(record: Any, where: str) -> RunLine:
    """A ``run`` line, its id checked against its configuration's hash."""
    if not isinstance(record, dict):
        raise StoreError(f"{where}: 'run' must be an object, got {record!r}")
    try:
        spec = RunSpec(name=_field(record, "name", str, where), method=_field(record, "method", str, where),
                       dataset=_field(record, "dataset", str, where), config=_field(record, "config", dict, where))
    except ConfigError as exc:
        raise StoreError(f"{where}: {exc}") from None
    run_id = _field(record, "run_id", str, where)
    if spec.run_id != run_id:
        raise StoreError(f"{where}: run {run_id} does not match its configuration (which hashes to "
                         f"{spec.run_id}); the file was edited or damaged: export the run again")
    return RunLine(spec, run_id, _field(record, "dataset_fingerprint", str, where))


def result_line(record: Any, where: str) -> tuple[str, QueryResult]:
    """A ``result`` line: its run id and the result."""
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
    query_id = _text(record, "query_id", where)
    if not query_id:
        raise StoreError(f"{where}: field 'query_id' is empty")
    return _field(record, "run_id", str, where), QueryResult(
        query_id=query_id, prediction=_field(record, "prediction", str, where),
        chunk_ids=tuple(chunk_ids), trace=_field(record, "trace", dict, where), usage=usage, error=error)


def verdict_line(record: Any, where: str) -> VerdictLine:
    """A ``verdict`` line."""
    if not isinstance(record, dict):
        raise StoreError(f"{where}: 'verdict' must be an object, got {record!r}")
    correct = record.get("correct")
    if correct is not None and not isinstance(correct, bool):
        raise StoreError(f"{where}: field 'correct' must be true, false or null, got {correct!r}")
    verdict = StoredVerdict(query_id=_text(record, "query_id", where),
                            prediction=_text(record, "prediction", where), correct=correct,
                            raw=_field(record, "raw", str, where))
    return VerdictLine(_field(record, "run_id", str, where), _text(record, "judge_model", where),
                       _text(record, "prompt_version", where), verdict)
