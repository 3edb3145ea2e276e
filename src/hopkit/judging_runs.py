"""LLM-judged accuracy of stored runs: judge their answers once, store each verdict, read them back.

The bridge between the store and :mod:`hopkit.evaluation.llm_judge`, as
:mod:`hopkit.scoring_runs` is for the other metrics. :func:`judge_run` asks the judge only
about answers it has no verdict on yet (or whose answer changed since), and stores each
verdict as soon as it is given, so an interrupted ``hopkit judge`` resumes where it
stopped. :func:`accuracy_by_question` turns stored verdicts into the ``llm_accuracy``
metric, and only when every scored question has one: a partly judged run shows none.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import AbstractSet, Mapping, Sequence

from tqdm import tqdm

from hopkit.errors import StoreError
from hopkit.evaluation.llm_judge import PROMPT_VERSION, AccuracyJudge, JudgeIdentity
from hopkit.store.records import QueryResult, RunInfo
from hopkit.store.store import Store
from hopkit.store.verdicts import StoredVerdict, VerdictStore

__all__ = ["JudgeOutcome", "accuracy_by_question", "choose_judge", "judge_run"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class JudgeOutcome:
    """What :func:`judge_run` did on one run.

    ``answered`` counts the run's questions with an answer (failed ones are not judged:
    they count as not correct); ``already`` those that had a verdict on their current
    answer before; ``judged_now`` those judged now; ``unreadable`` the answers whose
    stored verdict (old or new) could not be read as yes or no.
    """

    run: RunInfo
    judge: JudgeIdentity
    answered: int
    already: int
    judged_now: int
    unreadable: int


def _current(verdict: StoredVerdict | None, result: QueryResult) -> bool:
    return verdict is not None and verdict.prediction == result.prediction


def judge_run(store: Store, verdicts: VerdictStore, run: RunInfo, judge: AccuracyJudge, *,
              progress: bool = True, query_ids: AbstractSet[str] | None = None) -> JudgeOutcome:
    """Judge every answer of ``run`` that this judge has not judged yet, storing each verdict at once.

    Args:
        store: the store holding the run and its dataset.
        verdicts: where verdicts are kept (the same database).
        run: the run.
        judge: the judge; its :attr:`~AccuracyJudge.identity` keys the verdicts.
        progress: show a progress bar (tqdm, on stderr).
        query_ids: judge only these questions' answers (None: every answer).

    Returns:
        What was judged.

    Raises:
        StoreError: the run is unknown or stale, or a read or write fails.
        LLMError: the judging model failed (verdicts given before it are stored).
    """
    current = store.run(run.run_id)
    if current.stale:
        raise StoreError(current.stale_reason)
    identity = judge.identity
    queries = {q.id: q for q in store.queries(current.dataset)}
    stored = verdicts.verdicts(current.run_id, identity.model_id, identity.prompt_version)
    answered = [r for r in store.results(current.run_id) if r.error is None and r.query_id in queries
                and (query_ids is None or r.query_id in query_ids)]
    todo = [r for r in answered if not _current(stored.get(r.query_id), r)]
    unreadable = sum(1 for r in answered if _current(stored.get(r.query_id), r)
                     and stored[r.query_id].correct is None)
    bar = tqdm(todo, desc=f"judging {current.name}", unit="answer", disable=not progress)
    for result in bar:
        query = queries[result.query_id]
        verdict = judge.judge(query.text, result.prediction, query.answers)
        verdicts.record(current.run_id, identity.model_id, identity.prompt_version,
                        StoredVerdict(result.query_id, result.prediction, verdict.correct, verdict.raw))
        unreadable += 0 if verdict.readable else 1
    return JudgeOutcome(current, identity, len(answered), len(answered) - len(todo), len(todo), unreadable)


def accuracy_by_question(results: Sequence[QueryResult],
                         verdicts: Mapping[str, StoredVerdict]) -> dict[str, float] | None:
    """Each result's ``llm_accuracy``, if every result can have one.

    A failed question scores 0 (it has no answer to judge); an answered one scores 1 when
    the judge said its current answer implies the gold answer, and 0 when it said no or its
    reply was unreadable (the judge did not say it is correct; the verdict stays stored as
    unreadable).

    Args:
        results: the scored results of one run.
        verdicts: one judge's verdicts on that run, by question id.

    Returns:
        The values by question id, or None when an answered question has no verdict on its
        current answer (the run is not judged, or only partly).
    """
    values: dict[str, float] = {}
    for result in results:
        if result.error is not None:
            values[result.query_id] = 0.0
            continue
        verdict = verdicts.get(result.query_id)
        if verdict is None or verdict.prediction != result.prediction:
            return None
        values[result.query_id] = 1.0 if verdict.correct else 0.0
    return values


def choose_judge(verdicts: VerdictStore, run_ids: Sequence[str], model_id: str | None = None) -> JudgeIdentity | None:
    """The judge whose verdicts an evaluation of these runs reports.

    Only judges of the current :data:`~hopkit.evaluation.llm_judge.PROMPT_VERSION` count.
    With ``model_id``, its judge; else the one judge with verdicts on these runs, or None
    when there is none or several (name one then; the log says which there are).

    Args:
        verdicts: the verdicts' store.
        run_ids: the runs evaluated.
        model_id: the judging model's id, as ``hopkit judge`` printed it.

    Returns:
        The judge, or None.

    Raises:
        StoreError: ``model_id`` has no verdict on any of these runs (the message lists
            the judges that have), or the read fails.
    """
    found = [JudgeIdentity(model, version) for model, version in verdicts.judges(run_ids)
             if version.split("/", 1)[0] == PROMPT_VERSION]
    if model_id is not None:
        chosen = [j for j in found if j.model_id == model_id]
        if not chosen:
            known = ", ".join(str(j) for j in found) or "none"
            raise StoreError(f"judge {model_id!r} has no verdict on the selected runs (judges with "
                             f"verdicts: {known}); judge them with `hopkit judge RUN... --llm NAME`")
        found = chosen
    if len(found) == 1:
        return found[0]
    if found:
        logger.warning("several judges judged these runs (%s); name one to report its LLM accuracy",
                       ", ".join(str(j) for j in found))
    return None
