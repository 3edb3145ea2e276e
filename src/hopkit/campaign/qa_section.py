"""The tables of a QA section of docs/notebook.md, built from the stored runs.

qa_bench writes them after its runs (or, with ``--report-only``, from the stored results
alone); tests/benchmarks/test_qa_sections.py builds them again from the saved runs and
compares them with the page. Scoring, the one-step BM25 baseline and the plots; no model.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Mapping, Sequence

from hopkit.campaign.method_tables import method_sections
from hopkit.evaluation.cost_columns import cost_columns
from hopkit.evaluation.metrics import paragraph_recall
from hopkit.judging_runs import choose_judge
from hopkit.pipelines.retrieval.bm25 import BM25RetrievalPipeline
from hopkit.report.escape import markdown_cell
from hopkit.report.plot import RecallCurve, plot_comparison, plot_recall_curves, plot_time_split
from hopkit.report.table import comparison_table, to_markdown
from hopkit.scoring_runs import RETRIEVAL_BUDGET, score_runs
from hopkit.store.store import Store


def answered_all(store: Store, run: Any, compared: set[str]) -> bool:
    """Whether ``run`` has a result for every compared question of its dataset (partial runs are left out)."""
    wanted = {q.id for q in store.queries(run.dataset) if q.id in compared}
    done = {r.query_id for r in store.results(run.run_id)}
    if wanted <= done:
        return True
    print(f"left out: run {run.run_id} ({run.name}) answered {len(wanted & done)} of {len(wanted)} questions")
    return False


@dataclass(frozen=True)
class OneStep:
    """BM25 with the question alone, top 15, for a dataset's compared questions with gold paragraphs."""

    rankings: dict[str, list[int]]
    gold: dict[str, Sequence[int]]

    @classmethod
    def retrieve(cls, session_factory: Any, store: Store, dataset: str, compared: set[str]) -> OneStep:
        retriever = BM25RetrievalPipeline(session_factory, "bm25", dataset=dataset).retriever()
        queries = [q for q in store.queries(dataset) if q.id in compared and q.gold_paragraph_ids]
        return cls({q.id: [p.id for p in retriever.retrieve(q.text, RETRIEVAL_BUDGET)] for q in queries},
                   {q.id: q.gold_paragraph_ids for q in queries})

    def recall(self, query_id: str, count: int = RETRIEVAL_BUDGET) -> float:
        return paragraph_recall(self.rankings[query_id][:count], self.gold[query_id], RETRIEVAL_BUDGET)

    def curve(self) -> list[float]:
        """Mean recall at K = 1 .. 15."""
        return [sum(self.recall(qid, k) for qid in self.rankings) / len(self.rankings)
                for k in range(1, RETRIEVAL_BUDGET + 1)]


def recall_rows(store: Store, summary: Any, one_step: OneStep) -> list[tuple[int, float, float, float]]:
    """Per question of a retrieving run: paragraphs collected, the run's recall, one-step recall at
    the same count, one-step recall at 15."""
    rows = []
    for result in store.results(summary.run_id):
        if result.query_id not in one_step.rankings or result.error is not None:
            continue
        count = min(len(result.chunk_ids), RETRIEVAL_BUDGET)
        rows.append((count, paragraph_recall(result.chunk_ids, one_step.gold[result.query_id], RETRIEVAL_BUDGET),
                     one_step.recall(result.query_id, count), one_step.recall(result.query_id)))
    return rows


def recall_section(session_factory: Any, store: Store, summaries: list[Any], compared: set[str],
                   plot_path: Path | None) -> str:
    """Each retrieving run's gold-paragraph recall beside one-step BM25 with the question alone
    (same count, and K=15) as a table, and the one-step recall curve with the IRCoT runs as a plot
    (none without ``plot_path``)."""
    lines = ["| run | dataset | paragraphs collected | run's recall | one-step BM25, same count | "
             "one-step BM25, K=15 |", "|---|---|---:|---:|---:|---:|"]
    one_step: dict[str, OneStep] = {}
    points: dict[str, list[tuple[str, float, float]]] = {}
    for summary in summaries:
        if "paragraph_recall" not in summary.metrics:
            continue
        if summary.dataset not in one_step:
            one_step[summary.dataset] = OneStep.retrieve(session_factory, store, summary.dataset, compared)
        rows = recall_rows(store, summary, one_step[summary.dataset])
        means = [sum(column) / len(rows) for column in zip(*rows)]
        lines.append(f"| {markdown_cell(summary.name)} | {markdown_cell(summary.dataset)} | {means[0]:.1f} | "
                     + " | ".join(f"{100 * m:.1f}" for m in means[1:]) + " |")
        if summary.name.startswith("ircot"):
            points.setdefault(summary.dataset, []).append((summary.name, means[0], means[1]))
    if one_step and plot_path is not None:
        plot_recall_curves([RecallCurve(dataset, retrieved.curve(), points.get(dataset, []))
                            for dataset, retrieved in one_step.items()], plot_path)
    return "\n".join(lines)


def time_split_table(summaries: list[Any]) -> str:
    """Seconds per question, their split (the cost columns that split the time: model calls,
    retrieval, each judge's or label's own time, other), the share outside every component
    and the cached share of prompt tokens."""
    columns = {c.key: c for c in cost_columns(name for s in summaries for name in s.components)}
    split = [c for c in columns.values() if c.time_part is not None]
    shown = [columns["seconds_per_q"], *split]
    lines = ["| run | dataset | " + " | ".join(c.header for c in shown) + " | other % | Cached % |",
             "|---|---|" + "---:|" * (len(shown) + 2)]
    for s in summaries:
        share = 100 * s.other_seconds_per_q / s.seconds_per_q if s.seconds_per_q else 0.0
        cells = [c.text(s.cost.get(c.key)) for c in (*shown, columns["cached_prompt_share"])]
        lines.append(f"| {markdown_cell(s.name)} | {markdown_cell(s.dataset)} | {' | '.join(cells[:-1])} | "
                     f"{share:.2f} | {cells[-1]} |")
    return "\n".join(lines)


@dataclass(frozen=True)
class Cell:
    """One variant on one dataset, and the id its run has (or would have)."""

    variant: str
    dataset: str
    run_id: str


@dataclass(frozen=True)
class ScoredRuns:
    """The runs a section compares, scored on its questions.

    Attributes:
        runs: the stored runs that answered every compared question (partial runs are left out).
        summaries: their scores, each named by its benchmark variant.
        compared: the ids of the compared questions (the first ``limit`` of each dataset).
        labels: run id -> benchmark variant (two IRCoT variants share the method "ircot").
        missing: the cells the section names but has no complete stored run of.
    """

    runs: list[Any]
    summaries: list[Any]
    compared: set[str]
    labels: dict[str, str]
    missing: list[Cell]


def score_section(store: Store, cells: Sequence[Cell], datasets: Sequence[str],
                  limit: int | Mapping[str, int]) -> ScoredRuns:
    """Score the stored runs of ``cells`` on the first ``limit`` questions of each dataset (or as many as ``limit``
    gives the dataset)."""
    known = {run.run_id for run in store.runs()}
    runs = [run for cell in cells if cell.run_id in known for run in store.find_runs(cell.run_id)]
    limits = limit if isinstance(limit, Mapping) else dict.fromkeys(datasets, limit)
    compared = {q.id for dataset in datasets for q in store.queries(dataset, limit=limits[dataset])}
    runs = [run for run in runs if answered_all(store, run, compared)]
    judge = choose_judge(store.verdicts, [run.run_id for run in runs])  # Acc†, once `hopkit judge` judged the runs
    labels = {cell.run_id: cell.variant for cell in cells}
    summaries = [replace(s, name=labels[s.run_id])
                 for s in score_runs(store, runs, compared, verdicts=store.verdicts, judge=judge)]
    scored = {run.run_id for run in runs}
    return ScoredRuns(runs, summaries, compared, labels, [cell for cell in cells if cell.run_id not in scored])


def missing_note(missing: Sequence[Cell]) -> list[str]:
    """The paragraph naming the cells left out of the tables (none when every cell is there)."""
    if not missing:
        return []
    return ["Not in the tables, for want of a stored run that answered every compared question: "
            + _named(missing) + "."]


def nothing_scored(section: str, missing: Sequence[Cell], report_only: bool) -> str:
    """Why a section has no table to show: no cell has a stored run that answered every compared question."""
    return (f"section {section}: no stored run answered every compared question ({_named(missing)}); "
            + ("--report-only answers nothing: run the command without it, or import the saved runs first"
               if report_only else "see the run's log for the failed questions"))


def _named(cells: Sequence[Cell]) -> str:
    return ", ".join(f"{cell.variant} on {cell.dataset}" for cell in cells)


def section_body(session_factory: Any, store: Store, scored: ScoredRuns, stem: str,
                 img_dir: Path | None) -> list[str]:
    """The section's blocks after its header: the cells left out, the comparison, recall and time
    tables, the plots' links and the MIGRES and SearChain tables.

    The plots are drawn into ``img_dir`` (None: not drawn).
    """
    summaries = scored.summaries
    if img_dir is not None:  # one colour per method across datasets (the dataset is the plot's x axis)
        plot_comparison(summaries, img_dir / f"{stem}_comparison.png")
        plot_time_split(summaries, img_dir / f"{stem}_time_split.png")
    return [
        *missing_note(scored.missing),
        to_markdown(comparison_table(summaries)),
        "Gold-paragraph recall at equal budgets: each run's paragraphs (at most 15) beside one-step BM25 "
        "retrieval with the question alone, given the same number of paragraphs per question, and given 15. "
        "In the plot, an IRCoT run above the curve recalls more than one retrieval given as many paragraphs:",
        recall_section(session_factory, store, summaries, scored.compared,
                       None if img_dir is None else img_dir / f"{stem}_recall.png"),
        f"![recall at equal budgets](img/{stem}_recall.png)",
        "Seconds per question, split:",
        time_split_table(summaries),
        f"![comparison](img/{stem}_comparison.png)\n![time split](img/{stem}_time_split.png)",
        *method_sections(store, scored.runs, scored.labels, scored.compared),
    ]
