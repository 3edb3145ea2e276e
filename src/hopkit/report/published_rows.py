"""Published results beside hopkit's runs: per dataset, the reference rows the method packages declare
(:mod:`hopkit.methods.published`), each saying how its setting differs from the runs' (model, corpus,
retriever, k, questions), marked as published numbers, not hopkit runs."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from hopkit.evaluation.aggregate import RunSummary
from hopkit.methods.published import PublishedResult, Setting, all_published
from hopkit.methods.registry import entries
from hopkit.report.escape import markdown_cell
from hopkit.report.leaderboard import run_setup

OWN_PARAGRAPHS = "the dataset's own pooled paragraphs"


@dataclass(frozen=True)
class RunSetting:
    """What one run ran in: its model, retriever (in words), passages per retrieval, questions and corpus
    (a named corpus, or None for the dataset's own pooled paragraphs)."""

    method: str
    name: str
    model: str
    retrieval: str
    top_k: int | None
    questions: int
    corpus: str | None


def run_top_k(method: str, config: Mapping[str, Any]) -> int | None:
    """The run's passages per retrieval: its method's ``top_k`` option as stored (None where it has none)."""
    entry = entries().get(method)
    option = None if entry is None else entry.top_k
    value = (config.get("method") or {}).get(option) if option else None
    return value if isinstance(value, int) else None


def run_settings(summaries: Sequence[RunSummary], config_of: Callable[[str], Mapping[str, Any]],
                 corpus_of: Callable[[str], str | None]) -> dict[str, RunSetting]:
    """Each run's setting by run id, from its stored config (``config_of(run_id)``) and its dataset's corpus
    (``corpus_of(dataset)``: the named corpus it is on, or None)."""
    settings = {}
    for summary in summaries:
        config = config_of(summary.run_id)
        setup = run_setup(config)
        llm = config.get("llm") or {}
        model = str(llm.get("model_id") or llm.get("model") or llm.get("config") or setup.model)  # a server's: model
        settings[summary.run_id] = RunSetting(summary.method, summary.name, model, setup.retrieval,
                                              run_top_k(summary.method, config), summary.n_questions,
                                              corpus_of(summary.dataset))
    return settings


def _listed(values: Sequence[object]) -> str:
    return ", ".join(dict.fromkeys(str(value) for value in values))


def differences(setting: Setting, retrieves: bool, runs: Sequence[RunSetting]) -> list[str]:
    """How ``setting`` differs from the runs', part by part (model, corpus, retriever, k, questions); empty where
    it differs in none. ``retrieves``: whether the published method retrieves (a setting's corpus, retriever
    and k say nothing of one that does not)."""
    found = []
    models = [run.model for run in runs]
    if not models or not all(setting.model.matches(model) for model in models):
        found.append(f"model {setting.model.name} (runs: {_listed(models) or '-'})")
    if retrieves:
        corpora = [run.corpus or OWN_PARAGRAPHS for run in runs]
        if not corpora or any(corpus != setting.corpus for corpus in corpora):
            found.append(f"corpus {setting.corpus}, {setting.corpus_title} (runs: {_listed(corpora) or '-'})")
        embedder = setting.retriever.split(",")[0].strip().lower()
        retrievers = [run.retrieval for run in runs]
        if not retrievers or not all(embedder in retriever.lower() for retriever in retrievers):
            found.append(f"retriever {setting.retriever} (runs: {_listed(retrievers) or '-'})")
        ks = [run.top_k if run.top_k is not None else "not one k" for run in runs]
        if setting.top_k is None:
            found.append(f"k not stated by the source (runs: {_listed(ks) or '-'})")
        elif not ks or any(k != setting.top_k for k in ks):
            found.append(f"k {setting.top_k} (runs: {_listed(ks) or '-'})")
    wanted = setting.questions.count or setting.questions.first
    sizes = sorted({run.questions for run in runs})
    if wanted is None or sizes != [wanted]:
        found.append(f"questions {setting.questions.describe()} (runs: {_listed(sizes) or '-'})")
    return found


def _runs_beside(result: PublishedResult, runs: Sequence[RunSetting]) -> list[RunSetting]:
    """The runs a published row is set beside: those of its hopkit config (``oner``, ``oner-minilm``), else those
    of its method (none where the dataset has no run of it)."""
    same_method = [run for run in runs if run.method == result.method]
    named = [run for run in same_method if run.name == result.run or run.name.startswith(result.run + "-")]
    return named or same_method


def _value(rows: Sequence[PublishedResult], metric: str) -> str:
    return next((f"{row.value:.1f}" for row in rows if row.metric == metric), "-")


def reference_table(results: Sequence[PublishedResult], runs: Sequence[RunSetting]) -> str:
    """The published rows of one dataset, one line per source row and model, with how each differs from the
    runs beside it."""
    grouped: dict[tuple[str, str, str, str], list[PublishedResult]] = defaultdict(list)
    for result in results:
        grouped[result.source.url, result.row, result.run, result.setting.model.name].append(result)
    lines = ["Published results beside these runs: **not hopkit runs**, numbers read from their sources "
             "(`src/hopkit/methods/*/published.py`), each measured in its own setting; the last column names how "
             "that setting differs from the runs of the same hopkit config above (`hopkit reproduce TABLE` runs a "
             "table's cells in its setting).", "",
             "| published | row | hopkit config | model | questions | EM | F1 | setting differs from the runs in |",
             "|---|---|---|---|---|---:|---:|---|"]
    for (url, row, run, model), rows in grouped.items():
        setting = rows[0].setting
        entry = entries().get(rows[0].method)
        beside = _runs_beside(rows[0], runs)
        differs = (differences(setting, entry is None or entry.retrieves, beside) if beside
                   else [f"no hopkit run of {run} on this dataset"])
        lines.append(f"| [{markdown_cell(rows[0].source.title)}]({url}) | {markdown_cell(row)} | "
                     f"{markdown_cell(run)} | {markdown_cell(model)} | {setting.questions.describe()} | "
                     f"{_value(rows, 'em')} | {_value(rows, 'f1')} | "
                     f"{markdown_cell('; '.join(differs) or 'none')} |")
    return "\n".join(lines)


def store_references(summaries: Sequence[RunSummary], store: Any) -> dict[str, str]:
    """:func:`reference_tables` of every declared published result, the runs' settings read from ``store``
    (a :class:`~hopkit.store.store.Store`: each run's config, each dataset's named corpus)."""
    settings = run_settings(summaries, lambda run_id: store.run(run_id).config,
                            lambda dataset: store.corpus(dataset).corpus_name)
    return reference_tables(summaries, settings, all_published())


def reference_tables(summaries: Sequence[RunSummary], settings: Mapping[str, RunSetting],
                     published: Sequence[PublishedResult]) -> dict[str, str]:
    """Per dataset with runs, the table of its published rows (datasets no row is published for: none)."""
    by_dataset: dict[str, list[PublishedResult]] = defaultdict(list)
    for result in published:
        by_dataset[result.dataset].append(result)
    tables = {}
    for dataset in sorted({summary.dataset for summary in summaries}):
        if by_dataset.get(dataset):
            runs = [settings[s.run_id] for s in summaries if s.dataset == dataset and s.run_id in settings]
            tables[dataset] = reference_table(by_dataset[dataset], runs)
    return tables
