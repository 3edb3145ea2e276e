"""What a search agent's generation asks for: a search, an answer, or neither.

The model's text is untrusted. A generation is cut at the first closing tag of a search or an
answer (the backend's stop strings do this; a backend that ignored them is cut here), and the
action is the tag opened last before that point: ``<search> a <search> b`` searches ``b``. A
generation cut by the token budget with a tag still open is neither, and so is a closing tag of
the other kind (``<search> x </answer>``). Other tags of the template are removed from what the
action holds, and a query longer than the limit is cut to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from hopkit.methods.search_agent.templates import AgentTemplate

ActionKind = Literal["search", "answer", "none"]


@dataclass(frozen=True)
class Action:
    """A generation read: its ``kind``, what it holds (the query or the answer) and the generation as
    kept in the turn (up to the closing tag, without it); ``cut`` says the query was longer than the
    limit."""

    kind: ActionKind
    text: str
    kept: str
    cut: bool = False


def read_action(generation: str, template: AgentTemplate, *, cut_by_length: bool, max_query_chars: int) -> Action:
    """The action of one generation (``cut_by_length``: the backend says the token budget ended it)."""
    closes = [(index, kind) for kind, tag in (("search", template.query[1]), ("answer", template.answer[1]))
              if (index := generation.find(tag)) >= 0]
    closed_by: ActionKind | None = None
    kept = generation
    if closes:
        index, closed_by = min(closes)
        kept = generation[:index]
    elif cut_by_length:
        return Action("none", "", generation)
    opened = max((kept.rfind(template.query[0]), "search"), (kept.rfind(template.answer[0]), "answer"))
    if opened[0] < 0 or (closed_by is not None and closed_by != opened[1]):
        return Action("none", "", kept)
    kind: ActionKind = opened[1]  # type: ignore[assignment]
    held = _without_tags(kept[opened[0] + len(template.query[0] if kind == "search" else template.answer[0]):],
                         template)
    if kind == "search":
        held = template.cleaned_query(held)
        if not held:
            return Action("none", "", kept)
        if len(held) > max_query_chars:
            return Action("search", held[:max_query_chars].strip(), kept, cut=True)
    return Action(kind, held.strip(), kept)


def _without_tags(text: str, template: AgentTemplate) -> str:
    for tag in (*template.query, *template.answer):
        text = text.replace(tag, " ")
    return text
