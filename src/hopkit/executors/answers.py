"""One question answered and stored, wherever that happens, and the small record of it the run sees."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, replace

from hopkit.errors import EmptyAnswerError, LLMServerError, RetrievalServerError, StoreError
from hopkit.methods.protocol import Method
from hopkit.parsing.answers import is_blank_answer
from hopkit.records import GenerationResult, Query
from hopkit.store.records import QueryResult
from hopkit.store.store import Store
from hopkit.traces import TraceError, collect_trace, stored_trace
from hopkit.usage import track_usage

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StoredAnswer:
    """What the run needs to know of a question once its result is stored (it pickles).

    Attributes:
        query_id: the question.
        error: ``"ErrorClass: message"`` of a failed question, None when answered.
        failure_kind: the error's class name, None when answered.
        server_failure: the model server (or the retrieval server) kept failing for this question
            (:class:`LLMServerError`, :class:`RetrievalServerError`).
        store_failure: the store refused the question's result (a full disk, say), so only its failure is kept.
        paragraphs: how many paragraphs the answer rests on.
        seconds: wall time from taking the question to having stored its result.
        model_seconds: the part of it spent in model calls (the rest is hopkit's own time).
    """

    query_id: str
    error: str | None = None
    failure_kind: str | None = None
    server_failure: bool = False
    store_failure: bool = False
    paragraphs: int = 0
    seconds: float = 0.0
    model_seconds: float = 0.0

    @property
    def failed(self) -> bool:
        return self.error is not None


def answer_one(method: Method, query: Query, *, trace_prompts: bool = False) -> tuple[QueryResult, Exception | None]:
    """Answer one question; a failure is recorded with the question and returned, not raised.

    An empty final answer, or one made only of the prompt's cues and markup
    (:func:`~hopkit.parsing.answers.is_blank_answer`), is a failure too, an :class:`EmptyAnswerError`; its
    result keeps the method's trace and retrieved ids, so what the model said is stored. A method
    that raised (a server error in its reader, say) keeps what it retrieved before it failed, as its
    ``retrieve`` steps recorded it, so a failure's retrieval recall does not depend on how it failed.

    The steps and citations the method records (``hopkit.traces``) are stored under
    ``trace["typed_trace"]``, beside the method's metadata. A trace that is not JSON
    (NaN, an object) is a failure too, a :class:`~hopkit.traces.TraceError` naming the
    question and the key path; the result then stores no trace. With ``trace_prompts`` each
    step also stores the prompts of its model calls (``extra["prompts"]``).
    """
    result: GenerationResult | None = None
    failure: Exception | None = None
    with track_usage() as usage, collect_trace(prompts=trace_prompts) as steps:
        try:
            result = method.generate(query)
        except Exception as exc:  # one question's failure must not stop the run
            failure = exc
    if result is not None and is_blank_answer(result.text):
        what = "is empty" if not result.text.strip() else f"is only the prompt's own cue or markup: {result.text.strip()!r}"
        failure = EmptyAnswerError(f"the model gave no answer to question {query.id} (the final answer {what})")
    try:  # the steps the method recorded, beside its metadata; a failed question keeps those it reached
        trace = stored_trace(query.id, result.metadata if result is not None else {}, steps)
    except TraceError as exc:  # a trace JSON cannot hold fails its question, not the store write and the run
        trace = {}
        failure = exc if failure is None else failure
    if failure is not None:
        log.warning("question %s failed: %s: %s", query.id, type(failure).__name__, failure,
                    extra={"question": query.id})
    return QueryResult(
        query_id=query.id, prediction=result.text if result is not None else "",
        chunk_ids=tuple(result.chunk_ids) if result is not None else steps.retrieved_ids(),
        trace=trace,
        usage=usage.copy(),  # the block closed: its wall time is usage.total_seconds
        error=None if failure is None else f"{type(failure).__name__}: {failure}",
    ), failure


def record(store: Store, run_id: str, result: QueryResult, failure: Exception | None) -> StoredAnswer:
    """Store one question's result; a result the store refuses is stored as that question's failure.

    Raises:
        StoreError: the failure could not be stored either (the store is unusable: stop the run).
    """
    try:
        store.record_result(run_id, result)
    except StoreError as refused:
        log.warning("question %s: its result could not be stored (%s); storing it as failed", result.query_id, refused,
                    extra={"question": result.query_id})
        result = QueryResult(query_id=result.query_id, prediction="", usage=result.usage,
                             error=f"{type(refused).__name__}: {refused}")
        store.record_result(run_id, result)
        failure = refused
    return stored_answer(result, failure)


def stored_answer(result: QueryResult, failure: Exception | None) -> StoredAnswer:
    """What the run sees of a stored result."""
    return StoredAnswer(query_id=result.query_id, error=result.error,
                        failure_kind=None if failure is None else type(failure).__name__,
                        server_failure=isinstance(failure, (LLMServerError, RetrievalServerError)),
                        store_failure=isinstance(failure, StoreError), paragraphs=len(result.chunk_ids))


def answer_and_store(method: Method, query: Query, store: Store, run_id: str, *,
                     trace_prompts: bool = False) -> StoredAnswer:
    """Answer ``query`` with ``method`` and store the result at once (timed: :attr:`StoredAnswer.seconds`)."""
    started = time.perf_counter()
    result, failure = answer_one(method, query, trace_prompts=trace_prompts)
    stored = record(store, run_id, result, failure)
    return replace(stored, seconds=time.perf_counter() - started, model_seconds=result.usage.llm_seconds)


def store_failure(store: Store, run_id: str, query: Query, error: Exception) -> StoredAnswer:
    """Store ``query`` as failed with ``error`` (it was never answered: its worker died, for one)."""
    log.warning("question %s failed: %s: %s", query.id, type(error).__name__, error, extra={"question": query.id})
    result = QueryResult(query_id=query.id, prediction="", error=f"{type(error).__name__}: {error}")
    return record(store, run_id, result, error)
