"""Comparison tables of runs, rendered as Markdown, CSV or aligned terminal text."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Sequence

from hopkit.evaluation.aggregate import Estimate, RunSummary
from hopkit.evaluation.cost_columns import component_key, cost_columns
from hopkit.report.escape import csv_cell, markdown_cell, printable

__all__ = ["COMPACT_COLUMNS", "Cell", "Column", "Table", "compact", "comparison_table", "component_key",
           "metric_header", "run_labels", "to_csv", "to_markdown", "to_text"]

Cell = str | int | float | Estimate | None
"""One table cell: text, a number, a metric estimate, or ``None`` for "not applicable"."""

ColumnKind = Literal["text", "int", "float", "estimate"]

#: How a "not applicable" cell is shown.
MISSING = "-"


@dataclass(frozen=True)
class Column:
    """A table column: ``key`` names it in CSV, ``header`` in Markdown and text.

    ``digits`` is the number of decimals shown for ``float`` and ``estimate``
    columns; ``percent`` shows their values (fractions in [0, 1]) as percentages
    (CSV keeps the fractions).
    """

    key: str
    header: str
    kind: ColumnKind
    digits: int = 1
    percent: bool = False


@dataclass(frozen=True)
class Table:
    """Typed cells plus their columns; formatting happens only when rendering."""

    columns: tuple[Column, ...]
    rows: tuple[tuple[Cell, ...], ...]
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for i, row in enumerate(self.rows):
            if len(row) != len(self.columns):
                raise ValueError(f"table row {i} has {len(row)} cells for {len(self.columns)} columns")


_METRIC_COLUMNS: tuple[tuple[str, str], ...] = (
    ("em", "EM"),
    ("f1", "F1"),
    ("cover_em", "Cover-EM"),
    ("paragraph_recall", "Para R@{budget}"),
    ("title_recall", "Title R@{budget}"),
    ("answer_recall", "Ans R@{budget}"),
    ("llm_accuracy", "LLM Acc"),
)


def metric_header(metric: str, budget: int = 15) -> str:
    """The column header of a metric (``"EM"``, ``"Para R@15"`` ...).

    Args:
        metric: A name from :data:`hopkit.evaluation.scoring.METRIC_NAMES`.
        budget: The retrieval budget of the recall metrics.

    Returns:
        The header.

    Raises:
        KeyError: ``metric`` is not a metric name.
    """
    headers = dict(_METRIC_COLUMNS)
    if metric not in headers:
        raise KeyError(f"unknown metric {metric!r}; known: {', '.join(headers)}")
    return headers[metric].format(budget=budget)


#: Hex digits of the run id shown beside a name that two runs on one dataset share.
RUN_ID_SHOWN = 8


def run_labels(summaries: Sequence[RunSummary]) -> list[str]:
    """A display label per run, distinct among the runs on each dataset.

    A run is labelled by its name; where several runs on one dataset share a
    name (the same config run again with ``--top-k 4``, say), each is labelled
    ``name (run-id prefix)`` instead, so no two rows or bars look alike.

    Args:
        summaries: The runs.

    Returns:
        One label per run, in the order given.
    """
    shared: dict[tuple[str, str], list[str]] = {}
    for s in summaries:
        shared.setdefault((s.dataset, s.name), []).append(s.run_id)
    labels = []
    for s in summaries:
        ids = shared[(s.dataset, s.name)]
        if len(ids) == 1:
            labels.append(s.name)
            continue
        prefixes = [run_id[:RUN_ID_SHOWN] for run_id in ids]
        distinct = len(set(prefixes)) == len(set(ids))
        labels.append(f"{s.name} ({s.run_id[:RUN_ID_SHOWN] if distinct else s.run_id})")
    return labels


def comparison_table(summaries: Sequence[RunSummary], *, budget: int = 15) -> Table:
    """One row per run: answer and retrieval metrics, then costs per question.

    Runs are named by :func:`run_labels`, so two runs sharing a name on one
    dataset get distinct rows. The costs are the columns of
    :func:`hopkit.evaluation.cost_columns.cost_columns`: the model calls and tokens per
    question, the share of prompt tokens served from a cache (``Cached %``), the
    seconds per question (``s/q``) and their split: in model calls (``LLM s/q``),
    in retrieval (``Retr s/q``), in each other component a run entered (judges,
    methods' labels: its own time, and its model calls, their seconds and prompt
    tokens if it made any; ``-`` for runs without it) and outside every component
    (``Other s/q``).

    Args:
        summaries: The runs, in the order the rows should have.
        budget: The retrieval budget the recall metrics were computed with (used in
            the headers only).

    Returns:
        The table; metric cells are :class:`Estimate` (``None`` where a metric does
        not apply to a run).

    Raises:
        ValueError: ``summaries`` is empty.
    """
    if not summaries:
        raise ValueError("comparison_table: no runs to compare")
    columns: list[Column] = [
        Column("name", "Run", "text"),
        Column("method", "Method", "text"),
        Column("dataset", "Dataset", "text"),
        Column("n", "n", "int"),
        Column("failed", "Failed", "int"),
    ]
    columns += [Column(key, header.format(budget=budget), "estimate", 1, True)
                for key, header in _METRIC_COLUMNS]
    cost = [column for column in cost_columns(c for s in summaries for c in s.components)
            if any(column.key in s.cost for s in summaries)]
    columns += [Column(c.key, c.header, "float", c.digits, c.percent) for c in cost]
    rows: list[tuple[Cell, ...]] = []
    for s, label in zip(summaries, run_labels(summaries)):
        metric_cells: list[Cell] = [s.metrics.get(key) for key, _ in _METRIC_COLUMNS]
        cost_cells: list[Cell] = [s.cost.get(c.key) for c in cost]
        rows.append((label, s.method, s.dataset, s.n_questions, s.n_failed, *metric_cells, *cost_cells))
    return Table(tuple(columns), tuple(rows), _notes(summaries))


#: The columns a reader compares first: what ``hopkit evaluate`` shows without ``--wide``.
COMPACT_COLUMNS: tuple[str, ...] = ("name", "dataset", "n", "failed", "em", "f1", "cover_em", "paragraph_recall",
                                    "llm_accuracy", "seconds_per_q")


def compact(table: Table, keys: Sequence[str] = COMPACT_COLUMNS) -> Table:
    """``table`` with only the columns ``keys`` names (in the table's order), less any column empty in
    every row, and a note saying where the others are.

    Args:
        table: A table from :func:`comparison_table`.
        keys: The column keys to keep.

    Returns:
        The narrower table.
    """
    kept = [i for i, column in enumerate(table.columns)
            if column.key in keys and any(row[i] is not None for row in table.rows)]
    return Table(tuple(table.columns[i] for i in kept), tuple(tuple(row[i] for i in kept) for row in table.rows),
                 (*table.notes, "More columns (method, recall by title and answer, calls, tokens, cache, time split): "
                                "--wide, or the report's comparison.csv."))


def _notes(summaries: Sequence[RunSummary]) -> tuple[str, ...]:
    levels = sorted({e.confidence for s in summaries for e in s.metrics.values()})
    level = "/".join(f"{100 * c:g}%" for c in levels) or "95%"
    return (f"Metrics in %, shown as mean ±half-width of the {level} bootstrap interval; "
            f"{MISSING} = not applicable (the method does not retrieve, the questions have no "
            "gold paragraphs, or answer recall on yes/no questions).",
            "Recall metrics average over the questions where they apply; costs average over "
            "every attempted question, failed ones included. Cached % is the share of prompt "
            "tokens served from a reused cache; s/q splits into LLM (every model call), retrieval, "
            "each other component's own time (judges, methods' labels; if any) and other (time "
            "outside every component).")


def _format(cell: Cell, column: Column) -> str:
    if cell is None:
        return MISSING
    if isinstance(cell, Estimate):
        scale = 100.0 if column.percent else 1.0
        return f"{scale * cell.mean:.{column.digits}f} ±{scale * cell.half_width:.{column.digits}f}"
    if isinstance(cell, bool):
        return "yes" if cell else "no"
    if isinstance(cell, int):
        return str(cell)
    if isinstance(cell, float):
        return f"{(100.0 * cell if column.percent else cell):.{column.digits}f}"
    return cell


def _formatted_rows(table: Table) -> list[list[str]]:
    return [[_format(cell, col) for cell, col in zip(row, table.columns)] for row in table.rows]


def to_markdown(table: Table) -> str:
    """Render as a GitHub-flavoured Markdown table, numbers right-aligned, notes below; each cell is
    written by :func:`~hopkit.report.escape.markdown_cell` (a name's ``|``, ``<``, backticks, newlines ...
    print as themselves).

    Args:
        table: The table.

    Returns:
        The Markdown text, ending with a newline.
    """
    header = "| " + " | ".join(markdown_cell(c.header) for c in table.columns) + " |"
    rule = "|" + "|".join("---" if c.kind == "text" else "---:" for c in table.columns) + "|"
    lines = [header, rule]
    for cells in _formatted_rows(table):
        lines.append("| " + " | ".join(markdown_cell(c) for c in cells) + " |")
    if table.notes:
        lines.append("")
        lines.extend(table.notes)
    return "\n".join(lines) + "\n"


def to_text(table: Table) -> str:
    """Render as aligned plain text for a terminal: text left-aligned, numbers right-aligned.

    Args:
        table: The table.

    Returns:
        The text, ending with a newline.
    """
    body = [[printable(cell) for cell in row] for row in _formatted_rows(table)]
    headers = [c.header for c in table.columns]
    widths = [max([len(h)] + [len(row[i]) for row in body]) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        parts = [cell.ljust(w) if col.kind == "text" else cell.rjust(w)
                 for cell, col, w in zip(cells, table.columns, widths)]
        return "  ".join(parts).rstrip()

    lines = [line(headers), "  ".join("-" * w for w in widths)]
    lines += [line(row) for row in body]
    if table.notes:
        lines.append("")
        lines.extend(table.notes)
    return "\n".join(lines) + "\n"


def to_csv(table: Table, path: Path) -> Path:
    """Write the table as CSV with raw numbers, for further analysis.

    Columns are named by their keys. An estimate column ``k`` becomes three:
    ``k``, ``k_low`` and ``k_high``, as fractions (not percentages); a
    not-applicable cell is empty. A text cell that a spreadsheet would run as a
    formula (it starts with ``=``, ``+``, ``-``, ``@``) starts with ``'``. Notes
    are not written.

    Args:
        table: The table.
        path: Where to write; parent folders are created.

    Returns:
        ``path``.

    Raises:
        OSError: The file cannot be written.
    """
    header: list[str] = []
    for col in table.columns:
        header += [col.key, f"{col.key}_low", f"{col.key}_high"] if col.kind == "estimate" else [col.key]
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        for row in table.rows:
            out: list[str | int | float] = []
            for cell, col in zip(row, table.columns):
                if col.kind == "estimate":
                    out += ([cell.mean, cell.low, cell.high] if isinstance(cell, Estimate)
                            else ["", "", ""])
                elif cell is None:
                    out.append("")
                elif isinstance(cell, Estimate):
                    out.append(cell.mean)
                elif isinstance(cell, str):
                    out.append(csv_cell(cell))
                else:
                    out.append(cell)
            writer.writerow(out)
    return path
