"""What ``hopkit reproduce TABLE`` runs and how it reads the outcome: a published table's cells (one hopkit config on
one dataset, with the table's numbers for it), the stored dataset each cell answers, and where a published number
falls against hopkit's 95% interval."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from hopkit.errors import ConfigError
from hopkit.evaluation.aggregate import Estimate
from hopkit.methods.published import PublishedResult, Setting


@dataclass(frozen=True)
class Cell:
    """One cell of a published table: ``run`` (a hopkit config) on ``dataset``, with the numbers published for it.

    Attributes:
        run: the hopkit pipeline config that runs it.
        method: the registered method.
        dataset: the benchmark, by hopkit's name.
        stored: the stored dataset it answers (``--dataset-map``, else the benchmark's name).
        published: the table's numbers for the cell, one per metric.
    """

    run: str
    method: str
    dataset: str
    stored: str
    published: tuple[PublishedResult, ...]

    @property
    def setting(self) -> Setting:
        return self.published[0].setting


def dataset_map(pairs: Sequence[str]) -> dict[str, str]:
    """``--dataset-map BENCHMARK=STORED`` values as a mapping.

    Raises:
        ConfigError: a value that is not ``NAME=STORED``.
    """
    mapping = {}
    for pair in pairs:
        name, equals, stored = pair.partition("=")
        if not (equals and name.strip() and stored.strip()):
            raise ConfigError(f"--dataset-map {pair!r}: expected BENCHMARK=STORED_DATASET, e.g. hotpotqa=hotpotqa-fr")
        mapping[name.strip()] = stored.strip()
    return mapping


def table_cells(rows: Sequence[PublishedResult], methods: Sequence[str] = (), datasets: Sequence[str] = (),
                mapping: dict[str, str] | None = None) -> list[Cell]:
    """The cells of a table's ``rows``, in the order declared, narrowed to ``methods`` (hopkit configs or method
    names) and ``datasets`` when given.

    Raises:
        ConfigError: a method or dataset given that the table has no row of.
    """
    for option, wanted, known in (("--methods", methods, {r.run for r in rows} | {r.method for r in rows}),
                                  ("--datasets", datasets, {r.dataset for r in rows})):
        unknown = [name for name in wanted if name not in known]
        if unknown:
            raise ConfigError(f"{option} {' '.join(unknown)}: the table has no row of it; it has "
                              f"{', '.join(sorted(known))}")
    grouped: dict[tuple[str, str], list[PublishedResult]] = {}
    for row in rows:
        if (not methods or row.run in methods or row.method in methods) and (not datasets or row.dataset in datasets):
            grouped.setdefault((row.run, row.dataset), []).append(row)
    mapping = mapping or {}
    return [Cell(run, found[0].method, dataset, mapping.get(dataset, dataset), tuple(found))
            for (run, dataset), found in grouped.items()]


def ingest_hint(cell: Cell) -> str:
    """The commands that store the cell's dataset in the table's setting."""
    if cell.setting.ingest:
        return f"`{cell.setting.ingest.format(stored=cell.stored)}`"
    questions = cell.setting.questions
    first = f" --first {questions.first}" if questions.first is not None else ""
    return (f"`hopkit ingest flashrag/{cell.dataset} --split {questions.split}{first} --on-corpus "
            f"{cell.setting.corpus} --name {cell.stored}` (after `hopkit corpus add {cell.setting.corpus}`), or name "
            f"a stored one with --dataset-map {cell.dataset}=NAME")


def verdict(published: float, estimate: Estimate) -> str:
    """Where a published number (percent) falls against hopkit's 95% interval (fractions)."""
    low, high = 100 * estimate.low, 100 * estimate.high
    if published < low - 1e-9:
        return "outside: below hopkit's interval"
    if published > high + 1e-9:
        return "outside: above hopkit's interval"
    return "inside"
