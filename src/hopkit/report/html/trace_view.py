"""One result's trace prepared for its page: steps with their indentation, citations by step,
counts per kind, and the question's context (gold paragraphs, titles, gold answers).

The page shows each step through the renderer of the run's method (:mod:`hopkit.report.html.renderers`),
which reads the step's typed payload (the method's :class:`~hopkit.traces.payload.Payload`, named in its
registry entry); this module only reads the stored trace, it never draws.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from markupsafe import Markup

from hopkit.errors import TraceError
from hopkit.evaluation.metrics import exact_match
from hopkit.records import Paragraph, Query
from hopkit.store.records import QueryResult
from hopkit.traces import Step, Trace
from hopkit.traces.payload import Payload
from hopkit.traces.trace import TRACE_KEY

__all__ = ["QuestionContext", "StepView", "TraceView", "pretty_json", "trace_view"]

#: Paragraphs counted for the recall shown under the collected paragraphs (IRCoT's budget).
RECALL_BUDGET = 15


def pretty_json(value: Any) -> str:
    """``value`` as indented JSON (non-ASCII kept), for ``<pre>`` blocks."""
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False)


class QuestionContext:
    """What every step's drawing needs to know about its question.

    Args:
        query: the question with its gold.
        paragraphs: the paragraphs the page can show, by id.
    """

    def __init__(self, query: Query, paragraphs: Mapping[int, Paragraph]) -> None:
        self.query = query
        self.paragraphs = paragraphs
        self.gold = frozenset(query.gold_paragraph_ids)

    def title(self, pid: int) -> str:
        """The paragraph's title, or ``#id`` when the page does not hold it."""
        paragraph = self.paragraphs.get(pid)
        return paragraph.title if paragraph is not None and paragraph.title else f"#{pid}"

    def is_gold(self, pid: Any) -> bool:
        """True when ``pid`` is one of the question's gold paragraphs."""
        return pid in self.gold

    def link(self, pid: Any) -> Markup:
        """A link to the paragraph shown on the page (gold ones marked), or the value as text.

        Args:
            pid: a paragraph id (anything else is shown escaped, as is).

        Returns:
            The ``<a>`` element.
        """
        if not isinstance(pid, int) or isinstance(pid, bool):
            return Markup("<span class=\"muted\">{}</span>").format(pid if pid is not None else "(none)")
        # Kept short: a question's page repeats these links in every step that lists paragraphs.
        return Markup('<a class="para{}" href="#para-{}">{}</a>').format(
            " gold" if pid in self.gold else "", pid, self.title(pid))

    def answer_right(self, text: Any) -> bool | None:
        """Whether ``text`` exactly matches a gold answer (None when there is nothing to judge)."""
        if not isinstance(text, str) or not self.query.answers:
            return None
        return exact_match(text, self.query.answers) == 1.0


@dataclass(frozen=True)
class StepView:
    """A step as drawn: its JSON fields, its typed payload (None when the method declares none for its
    kind, or the step does not read as it: the step is then drawn as JSON) and its indentation."""

    id: int
    parent: int | None
    kind: str
    input: Any
    output: Any
    paragraph_ids: tuple[int, ...]
    scores: Any
    llm_calls: int
    extra: Mapping[str, Any]
    depth: int
    payload: Payload | None = None

    def score_of(self, index: int) -> float | None:
        """The score of the ``index``-th paragraph, when the step gives one per paragraph."""
        if isinstance(self.scores, (list, tuple)) and index < len(self.scores):
            value: float = self.scores[index]
            return value
        return None

    @property
    def named_scores(self) -> Mapping[str, float]:
        """The step's named scores (``{"confidence": 4}``), empty when it scores paragraphs."""
        return self.scores if isinstance(self.scores, Mapping) else {}


@dataclass(frozen=True)
class TraceView:
    """A result's trace as its page shows it."""

    steps: tuple[StepView, ...]
    citations: Mapping[int, tuple[Mapping[str, Any], ...]]
    counts: tuple[tuple[str, int], ...]
    llm_calls: int
    metadata: Mapping[str, Any]
    problem: str | None
    collected: tuple[int, ...]
    recall: float | None

    @property
    def metadata_json(self) -> str:
        """The method's own keys of the trace as indented JSON."""
        return pretty_json(dict(self.metadata))


def _depths(steps: Sequence[Any]) -> list[int]:
    """Indentation per step: a step's main child (the one with the largest subtree; of equal ones the
    last, as a method records its side checks before going on) stays at its depth, so a chain reads
    straight down; its other children are indented one level more."""
    size = {step.id: 1 for step in steps}
    children: dict[int, list[int]] = {}
    for step in reversed(steps):
        if step.parent is not None:
            size[step.parent] += size[step.id]
            children.setdefault(step.parent, []).insert(0, step.id)
    depth: dict[int, int] = {}
    for step in steps:
        if step.parent is None:
            depth[step.id] = 0
            continue
        siblings = children[step.parent]
        main = max(siblings, key=lambda sid: (size[sid], sid))
        depth[step.id] = depth[step.parent] + (0 if step.id == main else 1)
    return [depth[step.id] for step in steps]


def trace_view(result: QueryResult, context: QuestionContext, method: str | None = None) -> TraceView:
    """Read one stored result's trace for its page.

    A trace without typed steps (a method that records none) or one that does not read as the
    typed schema keeps its steps empty; the page then shows its JSON alone (``problem`` says why
    when it could not be read). A step that does not read as its method's payload keeps no
    payload (drawn as JSON) and ``problem`` says which.

    Args:
        result: the stored result.
        context: its question.
        method: the run's method (any case), whose registry entry names the payloads.

    Returns:
        The view.
    """
    metadata = {key: value for key, value in result.trace.items() if key != TRACE_KEY}
    problem = None
    try:
        trace = Trace.from_result_trace(result.trace)
    except TraceError as exc:
        trace, problem = Trace(), f"the typed trace could not be read ({exc}); shown as JSON"
        metadata = dict(result.trace)
    depths = _depths(trace.steps)
    payloads, unreadable = _payloads(trace.steps, method)
    if unreadable and problem is None:
        problem = f"{unreadable}; drawn as JSON"
    steps = tuple(StepView(s.id, s.parent, s.kind, s.input, s.output, s.paragraph_ids,
                           s.scores, s.llm_calls, s.extra, depth, payload)
                  for s, depth, payload in zip(trace.steps, depths, payloads))
    citations: dict[int, list[Mapping[str, Any]]] = {}
    for citation in trace.citations:
        citations.setdefault(citation.step, []).append(citation.to_json())
    counts = Counter(step.kind for step in steps)
    collected = tuple(result.chunk_ids)
    recall = None
    if context.gold and collected:
        recall = len(context.gold & set(collected[:RECALL_BUDGET])) / len(context.gold)
    return TraceView(steps, {k: tuple(v) for k, v in citations.items()}, tuple(counts.items()),
                     sum(step.llm_calls for step in steps), metadata, problem, collected, recall)



def _payloads(steps: Sequence[Step], method: str | None) -> tuple[list[Payload | None], str | None]:
    """Each step's payload by the method's registry entry, and what the first unreadable one said."""
    from hopkit.methods.registry import entries

    entry = entries().get(method.lower()) if method is not None else None
    if entry is None:
        return [None] * len(steps), None
    payloads: list[Payload | None] = []
    unreadable = None
    for step in steps:
        try:
            payloads.append(entry.payload(step))
        except TraceError as exc:
            payloads.append(None)
            unreadable = unreadable or str(exc)
    return payloads, unreadable
