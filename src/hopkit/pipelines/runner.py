"""Runs a method over many questions: resume, progress, concurrency, one stored result each.

The method answers one question at a time and knows nothing of the store; the
runner skips the questions a run already finished, records what each question cost
(the usage block it opens around the question: tokens, wall time, and calls and
seconds per component such as the model, retrieval and judges), and writes each
result as soon as it is done, so an interrupted run loses at most the questions in
flight.

An executor answers the questions: threads of this process by default
(:mod:`hopkit.executors.threads`), or actors of a Ray cluster
(:mod:`hopkit.executors.ray_actors`). Each result comes back stored, in the order the
questions finish. On Ctrl-C (or any error) the runner stops handing out questions and
returns at once: it does not wait for the questions in flight, which a rerun redoes.

An empty final answer, or one that is only the prompt's own cue or markup ("The answer is:",
"[Query 1]:"), is not an answer: the question is recorded as failed
(:class:`~hopkit.errors.EmptyAnswerError`) with the method's trace, and a rerun asks
again (with greedy decoding the model then says the same). With ``keep_failed`` a rerun leaves
such failures stored instead: those of :data:`~hopkit.errors.DETERMINISTIC_FAILURES`, which a
greedy rerun repeats; failures on a model server or the store are asked again all the same.

Each question's failure is logged with ``extra={"question": id}``, so a console can leave
those records to a log file and show the run's summary instead.
"""

from __future__ import annotations

import logging
from collections import Counter
from contextlib import closing
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from tqdm import tqdm

from hopkit.errors import DETERMINISTIC_FAILURES, LLMServerError, StoreError
from hopkit.executors.answers import answer_one
from hopkit.executors.protocol import Executor, RunJob
from hopkit.executors.shared_questions import TAKE_AT_ONCE, SharedQuestions
from hopkit.executors.threads import ThreadExecutor, answers_as_they_finish
from hopkit.methods.protocol import Method
from hopkit.records import Query
from hopkit.store.records import RunSpec
from hopkit.store.store import Store

__all__ = ["RunOutcome", "RunStart", "answer_one", "answers_as_they_finish", "run_method", "run_with"]

log = logging.getLogger(__name__)

# A server that failed this many questions in a row (after its own retries) is down:
# stop instead of failing every remaining question slowly.
MAX_CONSECUTIVE_SERVER_FAILURES = 3
# A run takes at least this many questions per worker in one round trip to the store, so that the
# workers seldom wait on a take.
TAKEN_PER_WORKER = 1
# A store that refused this many results in a row (a full disk) keeps none: stop before more
# questions are asked, and paid for, only to be lost.
MAX_CONSECUTIVE_STORE_FAILURES = 3


# A method that filters its evidence is asked, once this many questions are answered, whether it
# kept any: most questions without a paragraph means its filter option needs another value.
EVIDENCE_CHECK_AFTER = 5


@dataclass(frozen=True)
class RunStart:
    """What a run is about to do: its stored name, how many questions are left and how many at a time
    (``already_done`` counts the failures that ``keep_failed`` leaves stored, ``kept_failed`` says how many)."""

    run_id: str
    name: str
    dataset: str
    total_queries: int
    already_done: int
    workers: int
    kept_failed: int = 0


@dataclass(frozen=True)
class RunOutcome:
    """What a call to :func:`run_method` did.

    ``first_error`` is the first failure's message, ``failures`` counts the failures by error
    class, ``name`` is the run's stored name (a configuration first run under another name
    keeps that one), ``without_evidence`` counts the answered questions for which a method
    that filters its evidence (:func:`evidence_advice`) kept no paragraph, and ``answered_elsewhere``
    the questions another driver sharing the run answered meanwhile. ``already_done`` counts the
    stored failures that ``keep_failed`` left alone; ``kept_failed`` says how many they were.
    """

    run_id: str
    total_queries: int
    already_done: int
    finished: int
    failed: int
    first_error: str | None = None
    name: str = ""
    failures: Mapping[str, int] = field(default_factory=dict)
    without_evidence: int = 0
    evidence_advice: str | None = None
    answered_elsewhere: int = 0
    answering_seconds: float = 0.0
    model_seconds: float = 0.0
    kept_failed: int = 0

    @property
    def own_share(self) -> float:
        """The share of the time spent answering and storing questions that was hopkit's own (not the
        model's): retrieval, prompts, parsing, traces and the store (0 when nothing was timed)."""
        if self.answering_seconds <= 0:
            return 0.0
        return max(0.0, self.answering_seconds - self.model_seconds) / self.answering_seconds


def run_method(method: Method, queries: Sequence[Query], store: Store, spec: RunSpec, *,
               workers: int = 1, progress: bool = True, trace_prompts: bool = False,
               on_start: Callable[[RunStart], None] | None = None, keep_failed: bool = False) -> RunOutcome:
    """Answer every query not yet finished in the run ``spec`` with ``workers`` threads of this
    process, and store each result (the method's ``warm_up()`` first, once, when a question is left).

    Args:
        method: the method answering one question at a time.
        queries: the questions of the run.
        store: where results are written as each question finishes.
        spec: the run's full configuration; its hash identifies the run.
        workers: questions answered at once (threads; useful with model servers).
        progress: show a progress bar on stderr.
        trace_prompts: store the prompts of each step's model calls in its trace (large:
            every prompt in full, demonstrations included).
        on_start: called once the run is registered, before the first question (the CLI's first line).
        keep_failed: leave the stored failures a greedy rerun repeats (:data:`~hopkit.errors.DETERMINISTIC_FAILURES`)
            as they are instead of asking those questions again.
    """
    return run_with(ThreadExecutor(method, workers), queries, store, spec, progress=progress,
                    trace_prompts=trace_prompts, on_start=on_start, keep_failed=keep_failed)


def run_with(executor: Executor, queries: Sequence[Query], store: Store, spec: RunSpec, *, progress: bool = True,
             trace_prompts: bool = False, on_start: Callable[[RunStart], None] | None = None,
             keep_failed: bool = False) -> RunOutcome:
    """Answer every query not yet finished in the run ``spec`` with ``executor``, each result stored
    as soon as it is answered; :func:`run_method`'s arguments otherwise.

    Each question is taken in the store before it is answered and given back once stored
    (:mod:`hopkit.executors.shared_questions`): drivers running the same run at once, on one host or
    several, share its questions instead of each answering all of them."""
    run = store.ensure_run(spec)
    done = store.finished_query_ids(run.run_id)
    kept = store.failed_query_ids(run.run_id, DETERMINISTIC_FAILURES) if keep_failed else set()
    todo = [q for q in queries if q.id not in done and q.id not in kept]
    kept_failed = sum(q.id in kept for q in queries)
    if on_start is not None:
        on_start(RunStart(run.run_id, run.name, spec.dataset, len(queries), len(queries) - len(todo),
                          max(1, min(executor.workers, len(todo))), kept_failed))
    finished = failed = without_evidence = 0
    answering_seconds = model_seconds = 0.0
    failures: Counter[str] = Counter()
    first_error: str | None = None
    bar = tqdm(total=len(queries), initial=len(queries) - len(todo), disable=not progress,
               desc=f"{spec.name} on {spec.dataset}", unit="q", dynamic_ncols=True)
    server_failures_in_a_row = store_failures_in_a_row = 0
    questions = SharedQuestions(todo, store.claims, run.run_id,
                                take_at_once=max(TAKE_AT_ONCE, TAKEN_PER_WORKER * executor.workers))
    answers = executor.answers(RunJob(store, run.run_id, run.name, trace_prompts), questions)
    with bar, closing(answers), closing(questions):
        for answer in answers:
            questions.done(answer.query_id)
            failed += answer.failed
            finished += not answer.failed
            if answer.failure_kind is not None:
                failures[answer.failure_kind] += 1
            elif answer.paragraphs == 0 and executor.evidence_advice() is not None:
                without_evidence += 1
                if finished == EVIDENCE_CHECK_AFTER and without_evidence > finished / 2:
                    log.warning("%s kept no paragraph for %d of the first %d questions it answered: %s",
                                spec.name, without_evidence, finished, executor.evidence_advice())
            first_error = first_error or answer.error
            answering_seconds += answer.seconds
            model_seconds += min(answer.model_seconds, answer.seconds)
            bar.update(1)
            bar.set_postfix(failed=failed)
            server_failures_in_a_row = server_failures_in_a_row + 1 if answer.server_failure else 0
            if server_failures_in_a_row >= MAX_CONSECUTIVE_SERVER_FAILURES:
                raise LLMServerError(f"stopping run {spec.name}: {server_failures_in_a_row} questions in a row "
                                     f"failed on the model server ({answer.error}); finished questions are stored, "
                                     "rerun to resume once the server is back")
            store_failures_in_a_row = store_failures_in_a_row + 1 if answer.store_failure else 0
            if store_failures_in_a_row >= MAX_CONSECUTIVE_STORE_FAILURES:
                raise StoreError(f"stopping run {spec.name}: the store refused the results of "
                                 f"{store_failures_in_a_row} questions in a row ({answer.error}); free space on its "
                                 "disk or fix the store (answers stored before are kept), then rerun to resume")
    return RunOutcome(run_id=run.run_id, total_queries=len(queries), already_done=len(queries) - len(todo),
                      finished=finished, failed=failed, first_error=first_error, name=run.name,
                      failures=dict(failures), without_evidence=without_evidence,
                      evidence_advice=executor.evidence_advice(), answered_elsewhere=questions.answered_elsewhere,
                      answering_seconds=answering_seconds, model_seconds=model_seconds, kept_failed=kept_failed)
