"""Every error hopkit raises on purpose.

HopkitError
 ├── DataError            a dataset file or record is malformed (names file, line, field)
 ├── UnknownNameError     an unknown dataset, pipeline, LLM config or option name
 ├── ConfigError          a YAML config is missing a field or has a wrong value
 ├── StoreError           the database cannot be reached or is inconsistent
 ├── RetrievalError       an index is missing, stale or cannot answer
 │    └── RetrievalServerError a retrieval server errored, timed out or changed its index past the retries
 ├── ReportError          a report cannot be written where it was asked to go
 ├── ComparisonError      two runs cannot be compared (other datasets, no shared question)
 ├── UsageError           a usage record holds a bad count or a non-finite number of seconds
 ├── TraceError           a method's trace has a malformed step or a value JSON cannot hold
 ├── LLMError             a language model backend failed
 │    ├── LLMServerError  a server errored, timed out or rate-limited past the retries
 │    ├── RequestRefusedError a server refused the request as sent (HTTP 400, 413, 422: a prompt too long)
 │    ├── EmptyAnswerError the model's final answer to a question was empty
 │    └── ContextFullError a question's prompt outgrew the model's context window
 ├── ParseError           a model's output is not what was asked for (keeps the raw text)
 └── DownloadError        an official file could not be fetched
"""

from __future__ import annotations


class HopkitError(Exception):
    """Base class of every error hopkit raises on purpose."""


class DataError(HopkitError):
    """A dataset file or record is malformed."""

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None,
                 record: str | None = None, field: str | None = None) -> None:
        where = []
        if path is not None:
            where.append(f"{path}" + (f":{line}" if line is not None else ""))
        if record is not None:
            where.append(f"record {record}")
        if field is not None:
            where.append(f"field {field!r}")
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {message}" if prefix else message)
        self.path = path
        self.line = line
        self.record = record
        self.field = field


class UnknownNameError(HopkitError):
    """A name (dataset, pipeline, LLM config) that hopkit does not know."""

    def __init__(self, kind: str, name: str, known: list[str] | tuple[str, ...]) -> None:
        super().__init__(f"unknown {kind} {name!r}; known: {', '.join(sorted(known)) or '(none)'}")
        self.kind = kind
        self.name = name


class ConfigError(HopkitError):
    """A configuration file or option is invalid."""


class StoreError(HopkitError):
    """The store (database) cannot be reached or holds something inconsistent."""


class RetrievalError(HopkitError):
    """An index is missing or cannot answer a query."""


class RetrievalServerError(RetrievalError):
    """A retrieval server (``hopkit serve-retrieval``, Search-R1's) kept failing past the retries, or now serves
    another index than the one the run began on; a rerun asks its questions again."""


class WorkerError(HopkitError):
    """A worker process answering a run's questions could not start, or died (an executor's)."""


class ReportError(HopkitError):
    """A report (tables, plots) cannot be written to the folder asked for."""


class ComparisonError(HopkitError):
    """Two runs cannot be compared: they are on different datasets or share no question."""


class UsageError(HopkitError):
    """A usage record holds something that is not a count or a finite number of seconds."""


class TraceError(HopkitError):
    """A method's trace holds something it must not: a malformed step or citation, or a
    value JSON cannot represent (the message names the question and the key path)."""


class LLMError(HopkitError):
    """A language model backend failed."""


class LLMServerError(LLMError):
    """A model server kept failing (error status, time-out, rate limit) after the retries."""


class RequestRefusedError(LLMError):
    """A model server refused a request for what it asks (HTTP 400, 413 or 422: a prompt longer than the model's
    context, an option it does not take); the same request is refused again, so it is not retried."""


class EmptyAnswerError(LLMError):
    """The model gave no final answer to a question (recorded as that question's failure)."""


class ContextFullError(LLMError):
    """A prompt a method must send, with its generation budget, does not fit in the model's context window
    (the message names the sizes); a rerun with the same model and input repeats it."""


class ParseError(HopkitError):
    """A model's output could not be read as what was asked for.

    Attributes:
        expected: what the caller asked for ("a dict with fields ...", "a list").
        raw: the model's text, unchanged, so the caller can ask again and record it.
        detail: what was wrong with it.
    """

    def __init__(self, expected: str, raw: str, detail: str = "") -> None:
        shown = raw if len(raw) <= 200 else raw[:200] + "..."
        reason = f": {detail}" if detail else ""
        super().__init__(f"expected {expected}{reason}; the model wrote {shown!r}")
        self.expected = expected
        self.raw = raw
        self.detail = detail

    def __reduce__(self) -> tuple[type["ParseError"], tuple[str, str, str]]:
        return (type(self), (self.expected, self.raw, self.detail))


class DownloadError(HopkitError):
    """An official dataset or prompt file could not be downloaded."""


# The failures a rerun repeats when the model decodes greedily (as every shipped config does): its reply is the same,
# so the same answer is missing, the same text cannot be read, the same trace cannot be stored. By class name, as a
# stored result's error begins.
DETERMINISTIC_FAILURES = {"EmptyAnswerError": "the model wrote no answer",
                          "ParseError": "the model's reply could not be read",
                          "TraceError": "the method's trace could not be stored",
                          "RequestRefusedError": "the model server refused the request (a prompt longer than its "
                                                 "context, say)",
                          "ContextFullError": "the question's prompt outgrew the model's context"}
