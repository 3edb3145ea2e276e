"""Training Adaptive-RAG's classifier from runs already in the store, as the paper does: for each
dataset, the stored runs of NoR, OneR and IRCoT on the same questions give each question its silver
label (:mod:`hopkit.methods.adaptive_rag.labels`; right means exact match, the authors' test), and the
light classifier (:mod:`hopkit.methods.adaptive_rag.trained`) is fitted on them. Part of the questions
(chosen by a hash of their ids, so the split repeats) is held out to measure the classifier's accuracy
against the silver labels."""

from __future__ import annotations

import zlib
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from hopkit.errors import ConfigError
from hopkit.evaluation import metrics
from hopkit.methods.adaptive_rag.labels import LABELS, STRATEGIES, Label, SilverExample, silver_labels
from hopkit.methods.adaptive_rag.trained import TrainedClassifier, train
from hopkit.store.records import RunInfo
from hopkit.store.store import Store


@dataclass(frozen=True)
class TrainingOutcome:
    """The classifier, the silver examples (each with whether it was held out), the runs they came from,
    and the held-out accuracy (None with nothing held out)."""

    classifier: TrainedClassifier
    examples: tuple[tuple[SilverExample, bool], ...]
    runs: tuple[RunInfo, ...]
    held_out_accuracy: float | None

    def label_counts(self) -> dict[str, int]:
        counts = Counter(example.label for example, _ in self.examples)
        return {label: counts.get(label, 0) for label in LABELS}


def strategy_run(store: Store, dataset: str, method: str, named: str | None = None) -> RunInfo:
    """The stored run of ``method`` on ``dataset``: the one named ``named`` (a run name or id), else the one
    with the most answered questions (the newest of equals).

    Raises:
        ConfigError: there is none, or no run has that name.
    """
    runs = [run for run in store.runs(dataset) if run.method.lower() == method]
    if named is not None:
        runs = [run for run in runs if named in (run.name, run.run_id)]
    if not runs:
        which = f" named {named!r}" if named else ""
        raise ConfigError(f"no stored {method} run{which} on {dataset!r}: run `hopkit run {method} --dataset "
                          f"{dataset}` first (the silver labels come from NoR, OneR and IRCoT runs)")
    return max(runs, key=lambda run: (run.finished, run.created_at))


def held_out(query_id: str, share: float) -> bool:
    return share > 0 and zlib.crc32(query_id.encode("utf-8")) % 1000 < share * 1000


def train_router(store: Store, datasets: Sequence[str], *, held_out_share: float = 0.2,
                 named: dict[str, str] | None = None) -> TrainingOutcome:
    """Silver labels from the stored runs on ``datasets``, and the classifier trained on them.

    Raises:
        ConfigError: a strategy's run is missing, the runs share no answered question, or nothing is left
            to train on.
    """
    if not 0 <= held_out_share < 1:
        raise ConfigError(f"the held-out share must be at least 0 and below 1, got {held_out_share}")
    examples: list[tuple[SilverExample, bool]] = []
    used: list[RunInfo] = []
    for dataset in datasets:
        queries = {query.id: query for query in store.queries(dataset)}
        runs = {label: strategy_run(store, dataset, STRATEGIES[label], (named or {}).get(STRATEGIES[label]))
                for label in LABELS}
        used.extend(runs.values())
        answered: dict[Label, dict[str, str]] = {
            label: {r.query_id: r.prediction for r in store.results(run.run_id) if r.ok} for label, run in runs.items()}
        shared = [query_id for query_id in queries if all(query_id in answered[label] for label in LABELS)]
        if not shared:
            raise ConfigError(f"the NoR, OneR and IRCoT runs on {dataset!r} ({', '.join(r.name for r in runs.values())})"
                              " share no answered question")
        correct = {label: [query_id for query_id in shared
                           if metrics.exact_match(answered[label][query_id], queries[query_id].answers) > 0]
                   for label in LABELS}
        for example in silver_labels(dataset, {query_id: queries[query_id].text for query_id in shared}, correct):
            examples.append((example, held_out(f"{dataset}/{example.query_id}", held_out_share)))
    fitting = [example for example, out in examples if not out]
    if not fitting:
        raise ConfigError("every question was held out: lower --held-out")
    classifier = train([e.question for e in fitting], [e.label for e in fitting], LABELS)
    testing = [example for example, out in examples if out]
    accuracy = (sum(classifier.classify(e.question) == e.label for e in testing) / len(testing)) if testing else None
    return TrainingOutcome(classifier, tuple(examples), tuple(used), accuracy)
