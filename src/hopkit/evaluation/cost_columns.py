"""The cost columns of every report, declared once.

The terminal and Markdown table, its CSV, the HTML overview, the time-split plot and the
benchmarks' tables all show a run's cost through :func:`cost_columns`: a fixed head
(model calls, tokens, cached share, seconds and their split into model calls and
retrieval), one group per other usage component (a judge, a method's label such as
``migres:leaf``) and a fixed tail (the time outside every component). Each column says
how its value is computed from the usage records of a run's questions, so a column is
added, renamed or reformatted here alone.

The columns marked with a ``time_part`` split a question's seconds without overlap:
model calls (whichever component made them), retrieval, each component's own time
outside its model calls, and the rest.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

from hopkit.usage import BUILTIN_COMPONENTS, ComponentUsage, Usage

__all__ = ["COST_HEAD", "COST_TAIL", "CostColumn", "component_columns", "component_key", "cost_columns",
           "cost_values", "labelled_components", "time_parts"]

RunValue = Callable[[Sequence[Usage]], float]
"""How a column's value is computed from the usage records of a run's questions."""


@dataclass(frozen=True)
class CostColumn:
    """One cost column.

    Attributes:
        key: its name in CSV and in :attr:`hopkit.evaluation.aggregate.RunSummary.cost`.
        header: its title in tables.
        digits: decimals shown.
        value: its value for a run, from its questions' usage records (at least one).
        percent: the value is a fraction shown as a percentage (CSV keeps the fraction).
        time_part: its name as a part of the time split (plot, HTML overview); None if it is not one.
    """

    key: str
    header: str
    digits: int
    value: RunValue
    percent: bool = False
    time_part: str | None = None

    def text(self, value: float | None) -> str:
        """``value`` as this column shows it ("-" for None: the run has no such cost)."""
        return "-" if value is None else f"{(100 * value if self.percent else value):.{self.digits}f}"


def _per_question(read: Callable[[Usage], float]) -> RunValue:
    """The mean of ``read`` over a run's questions."""
    return lambda usages: math.fsum(read(usage) for usage in usages) / len(usages)


def _cached_share(usages: Sequence[Usage]) -> float:
    prompt = sum(usage.prompt_tokens for usage in usages)
    return sum(usage.cached_prompt_tokens for usage in usages) / prompt if prompt else 0.0


#: The columns before the components'.
COST_HEAD: tuple[CostColumn, ...] = (
    CostColumn("llm_calls_per_q", "LLM calls/q", 2, _per_question(lambda u: u.llm_calls)),
    CostColumn("prompt_tokens_per_q", "Prompt tok/q", 0, _per_question(lambda u: u.prompt_tokens)),
    CostColumn("completion_tokens_per_q", "Compl tok/q", 0, _per_question(lambda u: u.completion_tokens)),
    CostColumn("cached_prompt_share", "Cached %", 0, _cached_share, percent=True),
    CostColumn("seconds_per_q", "s/q", 2, _per_question(lambda u: u.total_seconds)),
    CostColumn("llm_seconds_per_q", "LLM s/q", 2, _per_question(lambda u: u.llm_seconds), time_part="LLM"),
    CostColumn("retrieval_seconds_per_q", "Retr s/q", 3, _per_question(lambda u: u.retrieval_seconds),
               time_part="retrieval"),
)
#: The columns after the components'.
COST_TAIL: tuple[CostColumn, ...] = (
    CostColumn("other_seconds_per_q", "Other s/q", 3, _per_question(lambda u: u.other_seconds), time_part="other"),
)
_FIXED_KEYS = {column.key for column in (*COST_HEAD, *COST_TAIL)}
_FIXED_PARTS = {column.time_part for column in (*COST_HEAD, *COST_TAIL)}


def component_key(name: str) -> str:
    """The CSV column key of a component's own seconds per question: ``judge:relevance`` gives
    ``judge_relevance_seconds_per_q`` (one named like a fixed column, ``other``, gives
    ``other_component_seconds_per_q``)."""
    return _stem(name) + "_seconds_per_q"


def _stem(name: str) -> str:
    stem = re.sub(r"\W+", "_", name).strip("_")
    return stem if stem + "_seconds_per_q" not in _FIXED_KEYS else _stem(f"{name} component")


def _of(name: str, read: Callable[[ComponentUsage], float]) -> RunValue:
    return _per_question(lambda usage: read(usage.component(name)))


def component_columns(name: str, *, model_calls: bool = True) -> tuple[CostColumn, ...]:
    """The columns of one component: its own seconds per question (a part of the time split) and,
    with ``model_calls``, its model calls, their seconds and their prompt tokens per question.

    Args:
        name: the component (``"judge:relevance"``, ``"migres:leaf"`` ...).
        model_calls: include the columns of its model calls.

    Returns:
        The columns.
    """
    stem = _stem(name)
    own = CostColumn(component_key(name), f"{name} s/q", 2, _of(name, lambda c: c.seconds),
                     time_part=name if name not in _FIXED_PARTS else f"{name} (component)")
    if not model_calls:
        return (own,)
    return (own,
            CostColumn(f"{stem}_llm_calls_per_q", f"{name} LLM calls/q", 2, _of(name, lambda c: c.llm_calls)),
            CostColumn(f"{stem}_llm_seconds_per_q", f"{name} LLM s/q", 2, _of(name, lambda c: c.llm_seconds)),
            CostColumn(f"{stem}_prompt_tokens_per_q", f"{name} prompt tok/q", 0,
                       _of(name, lambda c: c.prompt_tokens)))


def labelled_components(usages: Iterable[Usage]) -> tuple[str, ...]:
    """The components of ``usages`` besides the model's and retrieval (judges, methods' labels), sorted."""
    return tuple(sorted({name for usage in usages for name in usage.components} - set(BUILTIN_COMPONENTS)))


def cost_columns(components: Iterable[str]) -> tuple[CostColumn, ...]:
    """Every cost column for runs with ``components`` (each once, in sorted order): the head,
    each component's columns, the tail."""
    grouped = [column for name in sorted(set(components)) for column in component_columns(name)]
    return (*COST_HEAD, *grouped, *COST_TAIL)


def cost_values(usages: Sequence[Usage]) -> dict[str, float]:
    """A run's value of every cost column that applies to it, by key: the columns of a component
    only for the components its questions entered, those of its model calls only if it made some.

    Args:
        usages: the usage records of the run's questions (at least one).

    Returns:
        The values.

    Raises:
        ValueError: ``usages`` is empty.
    """
    if not usages:
        raise ValueError("cost_values: no usage records; a run's cost needs at least one question")
    columns = [*COST_HEAD, *COST_TAIL]
    for name in labelled_components(usages):
        columns += component_columns(name, model_calls=any(usage.component(name).llm_calls for usage in usages))
    return {column.key: column.value(usages) for column in columns}


def time_parts(components: Iterable[str], costs: Sequence[Mapping[str, float]]) -> dict[str, list[float]]:
    """The time split of runs, in drawing order: each part's seconds per question per run (0 where a
    run has no such part).

    Args:
        components: the components of the runs (:func:`labelled_components`).
        costs: each run's :func:`cost_values`.

    Returns:
        The parts by name: ``LLM``, ``retrieval``, each component's own time, ``other``.
    """
    return {column.time_part: [cost.get(column.key, 0.0) for cost in costs]
            for column in cost_columns(components) if column.time_part is not None}
