"""A paper's claims checked on stored runs, each worded by one rule.

For every :class:`~hopkit.methods.paper_claims.PaperClaim` and every dataset it names, the subject's
run and the baseline's run on that dataset (same model: the same model file, whichever backend ran it)
are compared on the claim's metric, paired on the questions both attempted
(:func:`hopkit.evaluation.compare.compare_scores`), and on the datasets pooled. The verdict follows
the paired test and nothing else:

* ``holds``: p < 0.05 and the difference points the paper's way;
* ``reversed``: p < 0.05 and it points the other way;
* ``cannot tell at n = N``: p >= 0.05 (the N questions do not show a difference either way);
* ``not run`` or ``not judged`` when a run, or the LLM judge's verdicts the metric needs, are missing.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from hopkit.errors import ComparisonError, UnknownNameError
from hopkit.evaluation.compare import MetricComparison, compare_scores
from hopkit.evaluation.llm_judge import JudgeIdentity
from hopkit.evaluation.scoring import QuestionScores
from hopkit.judging_runs import choose_judge
from hopkit.llm.transformers_backend import MODEL_ID_SUFFIX
from hopkit.methods.paper_claims import PaperClaim
from hopkit.methods.registry import entries
from hopkit.scoring_runs import score_run
from hopkit.store.records import RunInfo
from hopkit.store.store import Store
from hopkit.store.verdicts import VerdictStore

HOLDS, REVERSED, NOT_RUN, NOT_JUDGED = "holds", "reversed", "not run", "not judged"
POOLED = "pooled"


def verdict(direction: str, comparison: MetricComparison) -> str:
    """The claim's verdict on one comparison of the subject (A) against the baseline (B)."""
    if not comparison.distinguishable:
        return f"cannot tell at n = {comparison.n}"
    went_above = comparison.difference.mean > 0
    return HOLDS if went_above == (direction == "above") else REVERSED


@dataclass(frozen=True)
class ClaimCheck:
    """One claim on one dataset (or on its datasets pooled).

    Attributes:
        claim: what the paper reports.
        dataset: the dataset, or ``pooled: a, b, c``.
        subject_run: the subject's run there (None: none stored).
        baseline_run: the baseline's run (None: none stored with the subject run's model).
        comparison: the paired comparison on the claim's metric (None when it could not be made).
        verdict: ``holds``, ``reversed``, ``cannot tell at n = N``, ``not run`` or ``not judged``.
        note: why there is no comparison, or which runs were chosen among several.
    """

    claim: PaperClaim
    dataset: str
    subject_run: RunInfo | None
    baseline_run: RunInfo | None
    comparison: MetricComparison | None
    verdict: str
    note: str = ""


def declared_claims(subject: str) -> list[PaperClaim]:
    """The claims about ``subject``: a method's name gives every claim its entry declares, a run name
    such as ``alce-rerank`` those whose subject it is, and a run name whose paper makes claims
    (``search-r1``, one template of the search agent) those too (:attr:`PaperClaim.paper`).

    Raises:
        UnknownNameError: no method declares a claim about it (the message lists who does).
    """
    every = [claim for entry in entries().values() for claim in entry.claims]
    known = entries()
    if subject in known and known[subject].claims:
        return list(known[subject].claims)
    found = [claim for claim in every if subject in (claim.subject, claim.paper)]
    if not found:
        subjects = sorted({name for name, entry in known.items() if entry.claims}
                          | {c.subject for c in every} | {c.paper for c in every if c.paper})
        raise UnknownNameError("method with declared claims", subject, subjects)
    return found


def claim_pages() -> dict[str, list[PaperClaim]]:
    """Every declared claim by the page that shows it, in the registry's order: a method's own claims under
    its name, those a claim names another :attr:`~PaperClaim.paper` for under that run's name (the search
    agent's under ``search-r1``), each as ``hopkit claims NAME`` checks it."""
    pages: dict[str, list[PaperClaim]] = {}
    for name, entry in entries().items():
        for claim in entry.claims:
            pages.setdefault(claim.paper or name, []).append(claim)
    return pages


def runs_named(runs: Sequence[RunInfo], name: str, dataset: str) -> list[RunInfo]:
    """Those of ``runs`` on ``dataset`` called ``name`` or ``name-dataset`` (how ``hopkit run NAME`` and the
    benchmarks name them) that can be scored, the one with the most answers first, then the newest."""
    runs = [run for run in runs if run.dataset == dataset and not run.stale and run.finished
            and run.name in (name, f"{name}-{dataset}")]
    return sorted(runs, key=lambda run: (-run.finished, -run.created_at.timestamp()))


class ClaimChecker:
    """Checks claims on one store, reading each run's scores once.

    Args:
        store: the runs.
        verdicts: the LLM judges' stored verdicts, which ``llm_accuracy`` needs (None: not compared).
        judge: the judging model's id (None: the one judge that judged both runs of a pair).
        runs: the run to use for a (name, dataset), by run id (None: found by name, :func:`runs_named`).
    """

    def __init__(self, store: Store, verdicts: VerdictStore | None = None, judge: str | None = None,
                 runs: Mapping[tuple[str, str], str] | None = None) -> None:
        self.store = store
        self.verdicts = verdicts
        self.judge = judge
        self.runs = runs
        self._stored = store.runs()
        self._judges: dict[tuple[str, str], JudgeIdentity | None] = {}
        self._scores: dict[tuple[str, str | None], list[QuestionScores]] = {}
        self.absent: set[str] = set()  # datasets a checked claim names that the store does not hold

    def check(self, claims: Sequence[PaperClaim], datasets: Iterable[str] | None = None,
              pooled: bool = True) -> list[ClaimCheck]:
        """Every claim on each of its datasets that the store holds (``datasets`` narrows them), and pooled."""
        stored = set(self.store.datasets())
        wanted = stored if datasets is None else stored & set(datasets)
        checks: list[ClaimCheck] = []
        for claim in claims:
            self.absent |= set(claim.datasets) - stored
            per_dataset = [self._on_dataset(claim, dataset) for dataset in claim.datasets if dataset in wanted]
            checks.extend(per_dataset)
            compared = [check for check in per_dataset if check.comparison is not None]
            if pooled and len(compared) > 1:
                checks.append(self._pooled(claim, compared))
        return checks

    def _named(self, name: str, dataset: str) -> list[RunInfo]:
        if self.runs is None:
            return runs_named(self._stored, name, dataset)
        run_id = self.runs.get((name, dataset))
        return [run for run in self._stored if run.run_id == run_id]

    def _on_dataset(self, claim: PaperClaim, dataset: str) -> ClaimCheck:
        subjects = self._named(claim.subject, dataset)
        if not subjects:
            return ClaimCheck(claim, dataset, None, None, None, NOT_RUN,
                              f"no run of {claim.subject} on {dataset}: "
                              f"`hopkit run {claim.subject} --dataset {dataset}`")
        subject = subjects[0]
        baselines = [run for run in self._named(claim.baseline, dataset)
                     if same_model(run.config.get("llm"), subject.config.get("llm"))]
        if not baselines:
            return ClaimCheck(claim, dataset, subject, None, None, NOT_RUN,
                              f"no run of {claim.baseline} on {dataset} with {subject.name}'s model: "
                              f"`hopkit run {claim.baseline} --dataset {dataset} --llm ...`")
        baseline = baselines[0]
        note = (_chosen_note(claim.subject, subjects) + _chosen_note(claim.baseline, baselines)
                + _backend_note(subject, baseline))
        scored = self._pair(claim.metric, subject, baseline)
        if scored is None:
            return ClaimCheck(claim, dataset, subject, baseline, None, NOT_JUDGED,
                              f"no LLM judge has judged every answer of both runs: `hopkit judge {subject.name} "
                              f"{baseline.name} --dataset {dataset}`" + note)
        comparison = _metric(claim.metric, *scored, order=[q.id for q in self.store.queries(dataset)])
        if comparison is None:
            return ClaimCheck(claim, dataset, subject, baseline, None, NOT_RUN,
                              f"no question of {dataset} has {claim.metric} for both runs" + note)
        return ClaimCheck(claim, dataset, subject, baseline, comparison, verdict(claim.direction, comparison),
                          note.strip("; "))

    def _pair(self, metric: str, subject: RunInfo, baseline: RunInfo
              ) -> tuple[list[QuestionScores], list[QuestionScores]] | None:
        judge = self._judge(subject, baseline) if metric == "llm_accuracy" else None
        if metric == "llm_accuracy" and judge is None:
            return None
        return self._scored(subject, judge), self._scored(baseline, judge)

    def _judge(self, subject: RunInfo, baseline: RunInfo) -> JudgeIdentity | None:
        key = (subject.run_id, baseline.run_id)
        if key not in self._judges:
            self._judges[key] = (None if self.verdicts is None
                                 else choose_judge(self.verdicts, list(key), self.judge))
        return self._judges[key]

    def _scored(self, run: RunInfo, judge: JudgeIdentity | None) -> list[QuestionScores]:
        key = (run.run_id, None if judge is None else str(judge))
        if key not in self._scores:
            verdicts = (None if judge is None or self.verdicts is None
                        else self.verdicts.verdicts(run.run_id, judge.model_id, judge.prompt_version))
            self._scores[key] = score_run(self.store, run, None, verdicts)[1]
        return self._scores[key]

    def _pooled(self, claim: PaperClaim, checks: Sequence[ClaimCheck]) -> ClaimCheck:
        pooled_a: list[QuestionScores] = []
        pooled_b: list[QuestionScores] = []
        for check in checks:
            assert check.subject_run is not None and check.baseline_run is not None
            scores_a, scores_b = self._pair(claim.metric, check.subject_run, check.baseline_run) or ([], [])
            pooled_a += _keyed(check.dataset, scores_a)
            pooled_b += _keyed(check.dataset, scores_b)
        order = [f"{check.dataset}/{q.id}" for check in checks for q in self.store.queries(check.dataset)]
        comparison = _metric(claim.metric, pooled_a, pooled_b, order=order)
        assert comparison is not None  # each dataset had one
        name = f"{POOLED}: {', '.join(check.dataset for check in checks)}"
        return ClaimCheck(claim, name, None, None, comparison, verdict(claim.direction, comparison))


def _keyed(dataset: str, scores: Sequence[QuestionScores]) -> list[QuestionScores]:
    return [dataclasses.replace(score, query_id=f"{dataset}/{score.query_id}") for score in scores]


def _metric(metric: str, scores_a: Sequence[QuestionScores], scores_b: Sequence[QuestionScores],
            order: Sequence[str] | None = None) -> MetricComparison | None:
    """The comparison on ``metric``; its anytime-valid sequence sees the questions in ``order`` (None: run A's)."""
    try:
        comparison = compare_scores(scores_a, scores_b, order=order)
    except ComparisonError:
        return None
    return next((m for m in comparison.metrics if m.metric == metric), None)


def same_model(a: object, b: object) -> bool:
    """Whether two runs' model specs name the same model file and context: equal, or equal but for the
    transformers backend's model-id suffix (DRAGIN reads the attention of the file llama.cpp runs for others)."""
    return _model_file(a) == _model_file(b)


def _model_file(llm: object) -> object:
    if not isinstance(llm, Mapping) or not isinstance(llm.get("model_id"), str):
        return llm
    return {**llm, "model_id": llm["model_id"].removesuffix(MODEL_ID_SUFFIX)}


def _backend_note(subject: RunInfo, baseline: RunInfo) -> str:
    if subject.config.get("llm") == baseline.config.get("llm"):
        return ""
    through, other = (subject, baseline) if subject.config["llm"]["model_id"].endswith(MODEL_ID_SUFFIX) else (
        baseline, subject)
    return f"; {through.name} ran the model file through transformers and {other.name} through another backend"


def _chosen_note(name: str, runs: Sequence[RunInfo]) -> str:
    if len(runs) < 2:
        return ""
    return (f"; {len(runs)} runs of {name} on {runs[0].dataset}: used {runs[0].run_id} (most answers, then newest), "
            f"not {', '.join(run.run_id for run in runs[1:])}")
