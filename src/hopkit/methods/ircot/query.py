"""IRCoT's retrieval query for the next step, cleaned as the authors' code cleans it.

The query is the last chain-of-thought sentence that states a fact: sentences of
pure reasoning ("Thus, ...", "So ...", "That is, ...", "Therefore ...", "Hence ...",
or arithmetic such as "1990 - 1899 = 91") are skipped, since they name nothing a
retriever could find. Before any sentence exists the question itself is the query.
Then wh-words and "does"/"is" are dropped; an empty query means no retrieval for
that step.
"""

from __future__ import annotations

import re
import string
from typing import Sequence

# The authors' openers: "thus ", "thus,", "so ", "so,", "that is,", "therefore", "hence"
# ("therefore"/"hence" here as whole words, so "Hencely Park" is not reasoning).
REASONING_OPENER = re.compile(r"(?:thus[ ,]|so[ ,]|that is,|therefore\b|hence\b)", re.IGNORECASE)
_NUMBER = r"\d[\d,]*(?:\.\d+)?"
# An equation starts at the first digit of a number, never inside one: tried at every digit of a model's
# 5,000-digit number, the search took quadratic time (minutes per question, issue 70's fuzz).
ARITHMETIC = re.compile(rf"(?<![\d,]){_NUMBER}\s*[-+*/×÷−]\s*{_NUMBER}\s*=\s*{_NUMBER}")
QUERY_STOPWORDS = frozenset({"who", "what", "when", "where", "why", "which", "how", "does", "is"})


def is_reasoning_sentence(sentence: str) -> bool:
    """True for a sentence that only reasons (a reasoning opener, or an equation)."""
    if REASONING_OPENER.match(sentence.strip()):
        return True
    return ARITHMETIC.search(sentence) is not None


def remove_wh_words(text: str) -> str:
    """``text`` without the words who/what/when/where/why/which/how/does/is.

    A word is dropped when, lowercased and without surrounding punctuation, it is one
    of those; the other words keep their spelling and order.
    """
    kept = [word for word in text.split() if word.strip(string.punctuation).lower() not in QUERY_STOPWORDS]
    return " ".join(kept)


def next_query(question: str, cot_sentences: Sequence[str]) -> str:
    """The query for the next retrieval.

    Args:
        question: the question (used while no factual sentence exists yet).
        cot_sentences: the chain-of-thought sentences so far, oldest first.

    Returns:
        The last non-reasoning sentence (else the question) without wh-words and
        "does"/"is"; ``""`` when nothing is left, meaning: skip this retrieval.
    """
    factual = [s.strip() for s in cot_sentences if s.strip() and not is_reasoning_sentence(s)]
    source = factual[-1] if factual else question
    return remove_wh_words(source).strip()
