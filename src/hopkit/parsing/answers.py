"""IRCoT's answer extraction (paper, Appendix E): the text after "answer is:"."""

from __future__ import annotations

import re

ANSWER_PATTERN = re.compile(r".*answer is:?\s*(.*)", re.IGNORECASE | re.DOTALL)


def extract_answer(generation: str) -> str:
    """The answer in a chain of thought: what follows "answer is:", else the whole text."""
    text = generation.strip()
    match = ANSWER_PATTERN.match(text)
    if match and match.group(1).strip():
        text = match.group(1).strip()
    return text[:-1].strip() if text.endswith(".") else text


def clean_direct_answer(generation: str) -> str:
    """A direct answer: the first non-empty line, with a trailing period and "answer is:" removed."""
    first_line = generation.strip().split("\n", 1)[0].strip()
    return extract_answer(first_line)
