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
from typing import Mapping, Sequence

from hopkit.errors import ConfigError
from hopkit.evaluation import metrics
from hopkit.methods.adaptive_rag.labels import LABELS, STRATEGIES, Label, SilverExample, dataset_kind, silver_labels
from hopkit.methods.adaptive_rag.trained import TrainedClassifier, train
from hopkit.records import Query
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


def deciding(label: Label, dataset: str) -> bool:
    """Whether the strategy of ``label`` can decide a label on ``dataset``: IRCoT (``C``) only on a single-hop
    dataset, since on a multi-hop one a question NoR and OneR miss is ``C`` whatever IRCoT answers."""
    return label != "C" or dataset_kind(dataset) != "C"


def question_labels(store: Store, dataset: str, runs: Mapping[Label, RunInfo | None],
                    queries: Sequence[Query]) -> list[SilverExample]:
    """The silver labels of ``queries`` from the strategies' stored answers, in their order; a question NoR or
    OneR has not answered is left out. IRCoT's answer is read only where it decides the label: on a single-hop
    dataset, a question neither simpler strategy answers is ``C`` when IRCoT answers it, else ``B``; on a
    multi-hop dataset such a question is ``C`` whatever IRCoT answers, so no IRCoT run is needed there (its
    ``runs`` entry may be None).

    Raises:
        ConfigError: a single-hop dataset without an IRCoT run.
    """
    needs_ircot = deciding("C", dataset)
    if needs_ircot and runs.get("C") is None:
        raise ConfigError(f"{dataset!r} is single-hop: its questions neither NoR nor OneR answers need IRCoT's "
                          "answers for their labels; run IRCoT on it first")
    by_id = {query.id: query for query in queries}
    answered = {label: {r.query_id: r.prediction for r in store.results(run.run_id) if r.ok and r.query_id in by_id}
                for label, run in runs.items() if run is not None and (label != "C" or needs_ircot)}
    usable = [query_id for query_id in by_id if query_id in answered["A"] and query_id in answered["B"]]
    right = {label: [query_id for query_id in usable if query_id in predictions
                     and metrics.exact_match(predictions[query_id], by_id[query_id].answers) > 0]
             for label, predictions in answered.items()}
    if needs_ircot:
        usable = [query_id for query_id in usable
                  if query_id in answered["C"] or query_id in right["A"] or query_id in right["B"]]
    return silver_labels(dataset, {query_id: by_id[query_id].text for query_id in usable}, right)


def strategy_runs(store: Store, dataset: str, named: Mapping[str, str] | None = None) -> dict[Label, RunInfo | None]:
    """The NoR, OneR and IRCoT runs whose answers label ``dataset``'s questions (:func:`strategy_run`); IRCoT's
    only on a single-hop dataset, where it can decide a label."""
    named = named or {}
    return {label: (strategy_run(store, dataset, STRATEGIES[label], named.get(STRATEGIES[label]))
                    if deciding(label, dataset) else None) for label in LABELS}


def train_router(store: Store, datasets: Sequence[str], *, held_out_share: float = 0.2,
                 named: dict[str, str] | None = None, skip_first: int = 0,
                 runs: Mapping[str, Mapping[Label, RunInfo | None]] | None = None) -> TrainingOutcome:
    """Silver labels from the stored runs on ``datasets``, and the classifier trained on them; the first
    ``skip_first`` questions of each dataset (in its file's order) are left out, for a routed run to be
    measured on. The runs are ``runs[dataset]`` where given, else those :func:`strategy_runs` finds.

    Raises:
        ConfigError: a strategy's run is missing, the runs share no answered question, or nothing is left
            to train on.
    """
    if not 0 <= held_out_share < 1:
        raise ConfigError(f"the held-out share must be at least 0 and below 1, got {held_out_share}")
    if skip_first < 0:
        raise ConfigError(f"the questions to leave out must be at least 0, got {skip_first}")
    examples: list[tuple[SilverExample, bool]] = []
    used: list[RunInfo] = []
    for dataset in datasets:
        labelling = runs[dataset] if runs is not None and dataset in runs else strategy_runs(store, dataset, named)
        used.extend(run for run in labelling.values() if run is not None)
        labelled = question_labels(store, dataset, labelling, store.queries(dataset)[skip_first:])
        if not labelled:
            names = ", ".join(run.name for run in labelling.values() if run is not None)
            raise ConfigError(f"the runs on {dataset!r} ({names}) share no answered question"
                              + (f" past the first {skip_first}" if skip_first else ""))
        examples.extend((example, held_out(f"{dataset}/{example.query_id}", held_out_share)) for example in labelled)
    fitting = [example for example, out in examples if not out]
    if not fitting:
        raise ConfigError("every question was held out: lower --held-out")
    classifier = train([e.question for e in fitting], [e.label for e in fitting], LABELS)
    testing = [example for example, out in examples if out]
    return TrainingOutcome(classifier, tuple(examples), tuple(used), accuracy(classifier, testing))


def accuracy(classifier: TrainedClassifier, examples: Sequence[SilverExample]) -> float | None:
    """The share of ``examples`` whose silver label the classifier gives (None for none)."""
    if not examples:
        return None
    return sum(classifier.classify(e.question) == e.label for e in examples) / len(examples)
