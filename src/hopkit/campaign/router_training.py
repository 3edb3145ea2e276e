"""Adaptive-RAG's trained classifier for the benchmark's model, as the paper trains it: silver labels from the
saved NoR and OneR runs on questions 31-100 of each multi-hop sample (IRCoT's answers cannot change a label
there: a question both miss is C either way), the light classifier trained on them and saved to
``benchmarks/results/router/MODEL.npz`` (the file the ``adaptive-rag-trained`` variant routes by), and its
accuracy against the silver labels of the benchmark's first 30 questions of each sample (from the NoR and
OneR runs the routed run is compared with), into the notebook's section ``adaptive-rag-router``::

    HOPKIT_DATA_DIR=../shared/data .venv/bin/hopkit campaign train-router

The file is rewritten only when the classifier trained now differs from the saved one, so a routed run's id
(which holds the file's digest) stays while the labels stay.
"""

from __future__ import annotations

import argparse
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from hopkit.campaign.environment import LLM_NAME, NOTEBOOK_MD, RESULTS, ROOT, use_home
from hopkit.campaign.page_sections import command_line, write_section
from hopkit.campaign.qa_sections import restored_store
from hopkit.campaign.saved_run_ids import stand_in_pipeline
from hopkit.cli.numbers import number
from hopkit.errors import ConfigError, StoreError
from hopkit.evaluation.compare import mcnemar_exact
from hopkit.methods.adaptive_rag.labels import LABELS, STRATEGIES, Label, SilverExample
from hopkit.methods.adaptive_rag.trained import TrainedClassifier, load_classifier
from hopkit.methods.adaptive_rag.training import TrainingOutcome, deciding, question_labels, train_router
from hopkit.store.records import RunInfo
from hopkit.store.store import Store

ROUTER_DIR = RESULTS / "router"
SECTION = "adaptive-rag-router"
#: the benchmark's questions: the first 30 of each sample, never trained on
BENCHMARK_QUESTIONS = 30
DATASETS = ("hotpotqa", "2wikimultihopqa", "musique")


def router_file(llm_name: str = LLM_NAME) -> Path:
    """Where the classifier trained for ``llm_name``'s runs is kept."""
    return ROUTER_DIR / f"{llm_name}.npz"


def benchmark_runs(session_factory: Any, dataset: str) -> dict[Label, RunInfo | None]:
    """The saved runs of the benchmark's NoR and OneR variants on ``dataset`` (and IRCoT's on a single-hop one).

    Raises:
        SystemExit: one is not saved.
    """
    store = Store(session_factory)
    runs: dict[Label, RunInfo | None] = {}
    for label in LABELS:
        if not deciding(label, dataset):
            runs[label] = None
            continue
        run_id = stand_in_pipeline(STRATEGIES[label], dataset, session_factory).run_spec().run_id
        try:
            runs[label] = store.run(run_id)
        except StoreError:
            raise SystemExit(f"no saved {STRATEGIES[label]} run on {dataset} ({run_id}): run `hopkit campaign run "
                             f"--datasets {dataset} --methods {STRATEGIES[label]} --limit 100 --write-repository`")
    return runs


def holds(path: Path, trained: TrainedClassifier) -> bool:
    """Whether the classifier file at ``path`` holds ``trained`` (to rounding: weights within 1e-9)."""
    try:
        saved = load_classifier(path, LABELS)
    except ConfigError:
        return False
    return saved.weights.shape == trained.weights.shape and np.allclose(saved.weights, trained.weights, atol=1e-9) \
        and np.allclose(saved.bias, trained.bias, atol=1e-9)


def kept_or_new(trained: TrainedClassifier, path: Path) -> bool:
    """Save ``trained`` at ``path`` unless the file there holds it already; whether it was written."""
    if holds(path, trained):
        return False
    trained.save(path)
    return True


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}" if whole else "-"


def render(outcome: TrainingOutcome, benchmark: dict[str, list[SilverExample]], path: Path, command: str) -> str:
    counts = outcome.label_counts()
    held = [example for example, out in outcome.examples if out]
    held_accuracy = "-" if outcome.held_out_accuracy is None else f"{100 * outcome.held_out_accuracy:.1f}%"
    majority = max(LABELS, key=lambda label: (counts[label], -LABELS.index(label)))
    routed = {dataset: [(example, outcome.classifier.classify(example.question)) for example in examples]
              for dataset, examples in benchmark.items()}
    rows = [_row(dataset, pairs, majority) for dataset, pairs in routed.items()]
    rows.append(_row("pooled", [pair for pairs in routed.values() for pair in pairs], majority))
    return "\n\n".join([
        f"## Adaptive-RAG's trained classifier for {LLM_NAME} (`hopkit campaign train-router`)",
        f"Command: `{command}`  \nFile: `{path.relative_to(ROOT)}` (what the `adaptive-rag-trained` variant "
        "routes by).",
        "Silver labels by the paper's rule (the simplest strategy whose answer is an exact match, else the "
        f"dataset's kind: C on these multi-hop samples) from the saved NoR and OneR runs on questions "
        f"{BENCHMARK_QUESTIONS + 1}-100 of each sample; IRCoT's answers cannot change a label on a multi-hop "
        f"sample, so none are read. {len(outcome.examples)} questions: A (no retrieval) {counts['A']}, B "
        f"(single-step) {counts['B']}, C (multi-step) {counts['C']}. The light classifier (logistic regression over "
        f"hashed word unigrams and bigrams) trained on {len(outcome.examples) - len(held)} of them gives the silver "
        f"label to {held_accuracy} of the {len(held)} held out (chosen by a hash of their ids).",
        f"On the benchmark's first {BENCHMARK_QUESTIONS} questions of each sample (never trained on), against their "
        "silver labels from the benchmark's NoR and OneR runs, beside always answering the training set's most "
        f"common label ({majority}); p: McNemar's exact test on the same questions.",
        "\n".join(["| sample | n | silver A / B / C | routed A / B / C | classifier accuracy | "
                   f"always {majority} | p |", "|---|---:|---|---|---:|---:|---:|", *rows]),
        "The routed run itself (the `adaptive-rag-trained` variant) is in the `agents-2025` section, paired "
        "against each strategy and the prompted router in `adaptive-rag-trained-claims`.",
    ])


def _row(name: str, routed: Sequence[tuple[SilverExample, str]], majority: str) -> str:
    silver = Counter(example.label for example, _ in routed)
    chosen = Counter(label for _, label in routed)
    right = [label == example.label for example, label in routed]
    baseline = [example.label == majority for example, _ in routed]
    won = sum(a and not b for a, b in zip(right, baseline))
    lost = sum(b and not a for a, b in zip(right, baseline))
    return (f"| {name} | {len(routed)} | {' / '.join(str(silver[label]) for label in LABELS)} | "
            f"{' / '.join(str(chosen[label]) for label in LABELS)} | {_percent(sum(right), len(routed))} | "
            f"{_percent(sum(baseline), len(routed))} | {mcnemar_exact(won, lost):.2f} |")


def trained(session_factory: Any, datasets: Sequence[str], held_out: float = 0.2
            ) -> tuple[TrainingOutcome, dict[str, list[SilverExample]]]:
    """The classifier trained on the saved runs past the benchmark's questions, and the benchmark questions'
    silver labels by sample."""
    store = Store(session_factory)
    runs = {dataset: benchmark_runs(session_factory, dataset) for dataset in datasets}
    outcome = train_router(store, datasets, held_out_share=held_out, skip_first=BENCHMARK_QUESTIONS, runs=runs)
    benchmark = {dataset: question_labels(store, dataset, runs[dataset],
                                          store.queries(dataset, limit=BENCHMARK_QUESTIONS))
                 for dataset in datasets}
    return outcome, benchmark


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--held-out", type=number, default=0.2, help="share of the training questions held out")
    parser.add_argument("--report", type=Path, default=NOTEBOOK_MD, help="the markdown file to write the section to")
    args = parser.parse_args(argv)
    command = command_line()
    with tempfile.TemporaryDirectory() as scratch:
        use_home(Path(scratch))
        outcome, benchmark = trained(restored_store(Path(scratch) / "hopkit.db"), args.datasets, args.held_out)
    path = router_file()
    written = kept_or_new(outcome.classifier, path)
    print(f"{path}: {'written' if written else 'unchanged'}")
    write_section(SECTION, render(outcome, benchmark, path, command), args.report)
    print(f"wrote the section {SECTION} to {args.report}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
