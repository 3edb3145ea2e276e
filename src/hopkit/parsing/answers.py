"""IRCoT's answer extraction (paper, Appendix E): the text after "answer is:"; and what is no answer."""

from __future__ import annotations

import re

ANSWER_PATTERN = re.compile(r".*answer is:?\s*(.*)", re.IGNORECASE | re.DOTALL)

# The cues and labels hopkit's prompts end with or ask for ("So the answer is:", "[Query 1]:",
# '{"answer": {"text": ...', "A:"): an answer made of these alone repeats the prompt, it answers nothing.
_MARKUP = re.compile(
    r"\[\s*(?:query|answer|unsolved\s+query|final\s+content|reference|question)(?:\s*\d+)?\s*\]\s*:?"
    r"|[\"']?\b(?:(?:so\s+)?(?:the\s+)?(?:final\s+)?answer(?:\s+is)?|final\s+content|text|a|q)\b[\"']?\s*:",
    re.IGNORECASE)


def extract_answer(generation: str) -> str:
    """The answer in a chain of thought: what follows the last "answer is:", else the whole text.

    A generation that ends with the cue "answer is:" and nothing after it gives ``""``: the
    model announced an answer it did not write.
    """
    text = generation.strip()
    match = ANSWER_PATTERN.match(text)
    if match and (match.group(1).strip() or text.endswith(":")):
        text = match.group(1).strip()
    return text[:-1].strip() if text.endswith(".") else text


def first_line(text: str) -> str:
    """The text's first non-blank line, stripped ("" when it has none)."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def clean_direct_answer(generation: str) -> str:
    """A direct answer: the first non-empty line, with a trailing period and "answer is:" removed.

    When that line is only the cue ("The answer is:"), the answer is the next non-empty line.
    """
    lines = [line.strip() for line in generation.strip().split("\n") if line.strip()]
    for number, line in enumerate(lines[:2]):
        answer = extract_answer(line)
        if answer or number == 1 or not ANSWER_PATTERN.match(line):
            return answer
    return ""


def is_blank_answer(answer: str) -> bool:
    """Whether ``answer`` answers nothing: empty, or only the prompt's own cues, labels and punctuation
    ("", "The answer is:", "[Query 1]:", '{"text": ""}'); such a final answer is a failed question."""
    rest = _MARKUP.sub(" ", answer)
    return not any(character.isalnum() for character in rest)
