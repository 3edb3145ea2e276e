"""The leaderboard: one table per dataset, every run ranked by accuracy, with its interval, its cost per
question and whether it is on the Pareto front of accuracy against seconds per question."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from hopkit.evaluation.aggregate import RunSummary
from hopkit.report.escape import markdown_cell
from hopkit.report.html.pareto import pareto_front
from hopkit.retrieval.bm25 import BM25_DEFAULTS

#: The accuracy a dataset's table ranks by: the LLM judge's when every run there has it, else EM.
RANKED_BY = ("llm_accuracy", "em")
NAMES = {"llm_accuracy": "LLM Acc", "em": "EM", "f1": "F1", "cover_em": "Cover-EM"}


@dataclass(frozen=True)
class Setup:
    """What a run ran on: its model and its retriever, in words."""

    model: str
    retrieval: str


def run_setup(config: Mapping[str, Any]) -> Setup:
    """A run's model (``qwen2.5-coder-1.5b-instruct-q4_k_m, 4,096 tokens``) and retriever (``BM25 k1 0.9 b 0.4``,
    ``dense minilm``, ``none``), from its stored config."""
    llm = config.get("llm") or {}
    model = str(llm.get("model_id") or llm.get("config") or "a model")
    if llm.get("context_length"):
        model += f", {int(llm['context_length']):,} tokens"
    retrieval = config.get("retrieval")
    if not retrieval:
        return Setup(model, "none")
    options = retrieval.get("options") or {}
    if retrieval.get("kind") == "bm25":
        found = f"BM25 k1 {options.get('k1', BM25_DEFAULTS['k1']):g} b {options.get('b', BM25_DEFAULTS['b']):g}"
    else:
        found = f"{retrieval.get('kind')} {options.get('embedder', '?')}"
    return Setup(model, found + (f" + rerank {retrieval['rerank']}" if retrieval.get("rerank") else ""))


def ranking_metric(summaries: Sequence[RunSummary]) -> str:
    """``llm_accuracy`` when every run has it, else ``em``."""
    return next(metric for metric in RANKED_BY
                if metric == "em" or all(metric in summary.metrics for summary in summaries))


def _interval(summary: RunSummary, metric: str) -> str:
    estimate = summary.metrics.get(metric)
    if estimate is None:
        return "-"
    return f"{100 * estimate.mean:.1f} [{100 * estimate.low:.1f}, {100 * estimate.high:.1f}]"


def _cost(summary: RunSummary, key: str, digits: int) -> str:
    value = summary.cost.get(key)
    return "-" if value is None else f"{value:,.{digits}f}"


def dataset_table(summaries: Sequence[RunSummary], setups: Mapping[str, Setup],
                  links: Mapping[str, str] | None = None) -> str:
    """One dataset's runs, best first: the ranking accuracy with its 95% interval, the other answer metrics,
    retriever, cost per question and the Pareto front (no run both cheaper and at least as accurate)."""
    metric = ranking_metric(summaries)
    ordered = sorted(summaries, key=lambda s: (-s.metrics[metric].mean if metric in s.metrics else 1.0, s.name))
    front = {ordered[i].run_id for i in pareto_front(
        [(s.cost.get("seconds_per_q", 0.0), s.metrics[metric].mean if metric in s.metrics else 0.0) for s in ordered])}
    twice = {name for name, count in Counter(s.name for s in ordered).items() if count > 1}
    others = [m for m in ("em", "f1", "cover_em") if m != metric]
    header = (f"| rank | run | method | retrieval | n | {NAMES[metric]} [95%] | "
              + " | ".join(NAMES[m] for m in others) + " | s/q | LLM calls/q | prompt tok/q | Pareto |")
    rule = "|---:|---|---|---|---:|---:|" + "---:|" * len(others) + "---:|---:|---:|:---:|"
    rows = []
    for rank, summary in enumerate(ordered, 1):
        name = markdown_cell(f"{summary.name} ({summary.run_id[:8]})" if summary.name in twice else summary.name)
        method = markdown_cell(summary.method)
        method = f"[{method}]({links[summary.method]})" if links and summary.method in links else method
        setup = setups.get(summary.run_id)
        rows.append(f"| {rank} | {name} | {method} | {markdown_cell(setup.retrieval) if setup else '-'} | "
                    f"{summary.n_questions} | "
                    f"{_interval(summary, metric)} | "
                    + " | ".join(f"{100 * summary.metrics[m].mean:.1f}" if m in summary.metrics else "-"
                                 for m in others)
                    + f" | {_cost(summary, 'seconds_per_q', 2)} | {_cost(summary, 'llm_calls_per_q', 2)} | "
                      f"{_cost(summary, 'prompt_tokens_per_q', 0)} | {'yes' if summary.run_id in front else ''} |")
    models = sorted({setups[s.run_id].model for s in summaries if s.run_id in setups})
    sizes = sorted({s.n_questions for s in summaries})
    n = str(sizes[0]) if len(sizes) == 1 else f"{sizes[0]} to {sizes[-1]}"
    setup_line = (f"Model: {'; '.join(markdown_cell(model) for model in models)}. Questions per run: {n}." if models
                  else f"Questions per run: {n}.")
    return "\n".join([setup_line, "", header, rule, *rows])


def leaderboard(summaries: Sequence[RunSummary], setups: Mapping[str, Setup],
                links: Mapping[str, str] | None = None, claims: Sequence[str] = (),
                references: Mapping[str, str] | None = None) -> str:
    """The whole page: a table per dataset, then what the columns mean. Names (runs, methods, datasets, models,
    retrievers) are written by :func:`~hopkit.report.escape.markdown_cell`.

    Args:
        summaries: every run to show.
        setups: per run id, its model and retriever (:func:`run_setup`).
        links: per method, the address of its page.
        claims: lines about the methods' paper claims checked on these runs (``hopkit claims``).
        references: per dataset, the published results beside its runs
            (:func:`hopkit.report.published_rows.reference_tables`), shown under its table.
    """
    by_dataset: dict[str, list[RunSummary]] = defaultdict(list)
    for summary in summaries:
        by_dataset[summary.dataset].append(summary)
    parts = ["# Leaderboard"]
    for dataset in sorted(by_dataset):
        runs = by_dataset[dataset]
        metric = ranking_metric(runs)
        parts += [f"## {markdown_cell(dataset)}",
                  f"Ranked by {NAMES[metric]} (mean over the questions each run answered or failed, a failed one "
                  "counting as wrong; 95% bootstrap interval).",
                  dataset_table(runs, setups, links)]
        if references and dataset in references:
            parts.append(references[dataset])
    parts += list(claims)
    parts.append("Pareto: no other run on the dataset is both faster (s/q) and at least as accurate. Overlapping "
                 "intervals do not make two runs level, and the ranks are not tests: the paired comparisons "
                 "(`hopkit compare A B`, and `hopkit claims METHOD` for what a method's paper claims) say which "
                 "differences the shared questions show.")
    return "\n\n".join(parts) + "\n"
