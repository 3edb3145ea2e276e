"""Reading ReAct's model output: the thought and the action of a step, and the action's verb and
argument. Model output is untrusted text: nothing here raises on what it cannot read."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

Verb = Literal["search", "lookup", "finish"]
_ACTION = re.compile(r"^\s*(?P<verb>search|lookup|finish)\s*\[(?P<argument>.*)\]\s*\.?\s*$",
                     re.IGNORECASE | re.DOTALL)
_ACTION_THEN_MORE = re.compile(r"^\s*(?P<verb>search|lookup|finish)\s*\[(?P<argument>[^\]]*)\]", re.IGNORECASE)


@dataclass(frozen=True)
class Action:
    """A readable action: its verb (lower case), the text between its brackets, and the action as
    written without what followed it on its line."""

    verb: Verb
    argument: str
    written: str = field(default="", compare=False)


def split_thought_action(generation: str, number: int) -> tuple[str, str] | None:
    """The step's thought and action text, split at ``Action <number>:`` as the authors' loop does;
    None when the generation has no such line (the loop then asks for the action alone)."""
    parts = re.split(rf"\n\s*Action\s*{number}\s*:\s*", generation.strip(), maxsplit=1)
    if len(parts) != 2:
        return None
    thought, action = parts
    return thought.strip(), action.strip().split("\n")[0].strip()


def parse_action(text: str) -> Action | None:
    """``Search[x]``, ``Lookup[x]`` or ``Finish[x]`` (any case, spaces around the bracket allowed);
    None for anything else, which the environment answers as an invalid action.

    The authors' environment reads an action only when the line ends with its closing bracket.
    A small model often writes more after it on the same line (a code fence, the next
    "Thought 1:"); such an action is read up to its first closing bracket and the rest dropped.
    """
    match = _ACTION.match(text) or _ACTION_THEN_MORE.match(text)
    if match is None:
        return None
    verb: Verb = match.group("verb").lower()  # type: ignore[assignment]  # one of the regex's three
    written = text[: match.end()].strip()  # the whole text when the line ends with the bracket
    return Action(verb=verb, argument=" ".join(match.group("argument").split()), written=written)
