"""Reading the Self-Ask format off model output: the follow-up question a generation ends with,
and the final answer. Model output is untrusted text: these only look for the markers, line by
line, and never fail on what they cannot read (None: no follow-up, no answer)."""

from __future__ import annotations

import re

from hopkit.parsing.answers import clean_direct_answer

_FOLLOW_UP = re.compile(r"^\s*follow[\s-]*up\s*:\s*(?P<question>.*?)\s*$", re.IGNORECASE)
_FINAL = re.compile(r"so\s+the\s+final\s+answer\s+is\s*:?(?P<answer>[^\n]*)", re.IGNORECASE)


def follow_up(generation: str) -> str | None:
    """The follow-up question the generation's last line asks (``Follow up: ...``), or None when
    its last non-blank line asks none, or asks an empty one."""
    lines = [line for line in generation.splitlines() if line.strip()]
    if not lines:
        return None
    match = _FOLLOW_UP.match(lines[-1])
    if match is None:
        return None
    return match.group("question") or None


def final_answer(transcript: str) -> str | None:
    """The answer after the transcript's last ``So the final answer is:`` (cleaned as a direct
    answer: its first line, no trailing period), or None when there is no such line."""
    matches = list(_FINAL.finditer(transcript))
    if not matches:
        return None
    return clean_direct_answer(matches[-1].group("answer"))


def without_trailing_follow_up(generation: str) -> str:
    """The generation without the follow-up it ends with (one left unanswered when the loop stops)."""
    lines = generation.rstrip().splitlines()
    if lines and _FOLLOW_UP.match(lines[-1]):
        lines = lines[:-1]
    return "\n".join(lines)
