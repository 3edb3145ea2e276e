"""Per-question metric functions: answer EM/F1/cover-EM, ROUGE-L and retrieval recall.

Every function here is pure and total on valid input. Answer metrics take the gold
answers as a sequence (main answer plus aliases) and return the best score over
them. A metric that cannot be computed raises: no gold answers, no gold
paragraphs or a budget below 1 are errors, never a silent 0 or ``None``. Deciding
that a metric does not apply to a question (a method that never retrieves, a
question without gold paragraphs) is the caller's job; see
:func:`hopkit.evaluation.scoring.score_question`.

Normalisation and F1 follow the official HotpotQA evaluation script (itself the
SQuAD v1.1 script plus the yes/no/noanswer rule).
"""

from __future__ import annotations

import re
import string
from collections import Counter
from typing import Sequence

from hopkit.errors import DataError

__all__ = [
    "normalize_answer",
    "exact_match",
    "f1",
    "cover_em",
    "paragraph_recall",
    "title_recall",
    "answer_recall",
    "rouge_l",
]

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = frozenset(string.punctuation)
# Answers that HotpotQA's F1 only credits when prediction and gold are identical.
_SPECIAL_ANSWERS = frozenset({"yes", "no", "noanswer"})


def normalize_answer(s: str) -> str:
    """Normalise an answer the SQuAD way.

    Lower-cases, removes ASCII punctuation, removes the articles "a", "an" and
    "the" as whole words, and collapses runs of whitespace to one space (the order
    of the official script).

    Args:
        s: Any answer or prediction text.

    Returns:
        The normalised text; ``""`` if nothing but punctuation, articles and
        whitespace was left.
    """
    lowered = s.lower()
    no_punct = "".join(ch for ch in lowered if ch not in _PUNCTUATION)
    no_articles = _ARTICLES.sub(" ", no_punct)
    return " ".join(no_articles.split())


def _check_golds(golds: Sequence[str], metric: str) -> None:
    if isinstance(golds, str):
        raise TypeError(f"{metric}: golds must be a sequence of answers, not one string {golds!r}; "
                        "wrap it in a tuple")
    if len(golds) == 0:
        raise DataError(f"{metric}: no gold answers to compare with; questions without answers "
                        "cannot be scored (drop them or fix the dataset loader)")


def exact_match(prediction: str, golds: Sequence[str]) -> float:
    """Exact match after normalisation, best over the gold answers.

    Args:
        prediction: The predicted answer.
        golds: The gold answer and its aliases (at least one).

    Returns:
        1.0 if the normalised prediction equals some normalised gold answer, else 0.0.

    Raises:
        DataError: ``golds`` is empty.
        TypeError: ``golds`` is a single string instead of a sequence.
    """
    _check_golds(golds, "exact_match")
    pred = normalize_answer(prediction)
    return 1.0 if any(pred == normalize_answer(gold) for gold in golds) else 0.0


def _f1_single(pred: str, gold: str) -> float:
    """Token F1 of two already-normalised answers, with HotpotQA's special answers."""
    if (pred in _SPECIAL_ANSWERS or gold in _SPECIAL_ANSWERS) and pred != gold:
        return 0.0
    pred_tokens = pred.split()
    gold_tokens = gold.split()
    if not pred_tokens and not gold_tokens:
        # Both empty (e.g. gold "The" and an empty prediction): an exact match. The
        # official script divides by zero here; EM already calls this a match.
        return 1.0
    common = Counter(pred_tokens) & Counter(gold_tokens)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision = same / len(pred_tokens)
    recall = same / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


def f1(prediction: str, golds: Sequence[str]) -> float:
    """Token-level F1 after normalisation, best over the gold answers.

    As in the official HotpotQA script: if the normalised prediction or gold answer
    is "yes", "no" or "noanswer" and the two differ, F1 is 0 (so "no" never earns
    partial credit against "no way").

    Args:
        prediction: The predicted answer.
        golds: The gold answer and its aliases (at least one).

    Returns:
        The largest F1 in [0, 1] over the gold answers.

    Raises:
        DataError: ``golds`` is empty.
        TypeError: ``golds`` is a single string instead of a sequence.
    """
    _check_golds(golds, "f1")
    pred = normalize_answer(prediction)
    return max(_f1_single(pred, normalize_answer(gold)) for gold in golds)


def _contains_tokens(haystack: str, needle: str) -> bool:
    """Whether normalised ``needle`` occurs in normalised ``haystack`` on word boundaries.

    An empty needle (a gold answer that normalises to nothing) only matches an
    empty haystack, as exact match would; it must not match everything.
    """
    if not needle:
        return not haystack
    return f" {needle} " in f" {haystack} "


def cover_em(prediction: str, golds: Sequence[str]) -> float:
    """Cover-EM (SearChain): is some gold answer contained in the prediction?

    Both sides are normalised and the gold must occur as whole words, so the gold
    "no" is not found in "I do not know" and "1" is not found in "1990". (A plain
    character search, as some toolkits do, would count both.)

    Args:
        prediction: The predicted answer, possibly a long sentence.
        golds: The gold answer and its aliases (at least one).

    Returns:
        1.0 if some normalised gold answer occurs in the normalised prediction, else 0.0.

    Raises:
        DataError: ``golds`` is empty.
        TypeError: ``golds`` is a single string instead of a sequence.
    """
    _check_golds(golds, "cover_em")
    pred = normalize_answer(prediction)
    return 1.0 if any(_contains_tokens(pred, normalize_answer(gold)) for gold in golds) else 0.0


def _check_budget(budget: int, metric: str) -> None:
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise ValueError(f"{metric}: budget must be a positive integer, got {budget!r} "
                         "(the papers use 15)")


def paragraph_recall(retrieved_ids: Sequence[int], gold_ids: Sequence[int], budget: int = 15) -> float:
    """Share of gold paragraphs among the first ``budget`` retrieved ones.

    Duplicates are counted once on both sides.

    Args:
        retrieved_ids: Paragraph ids in the order the method collected them.
        gold_ids: The question's gold (supporting) paragraph ids (at least one).
        budget: How many retrieved paragraphs count (IRCoT: at most 15).

    Returns:
        |gold ∩ retrieved[:budget]| / |gold|, in [0, 1]; 0.0 if nothing was retrieved.

    Raises:
        DataError: ``gold_ids`` is empty (recall is undefined).
        ValueError: ``budget`` is not a positive integer.
    """
    _check_budget(budget, "paragraph_recall")
    gold = set(gold_ids)
    if not gold:
        raise DataError("paragraph_recall: no gold paragraph ids, so recall is undefined; "
                        "skip questions without gold paragraphs")
    return len(gold.intersection(retrieved_ids[:budget])) / len(gold)


def _title_key(title: str) -> str:
    return " ".join(title.split()).casefold()


def title_recall(retrieved_titles: Sequence[str], gold_titles: Sequence[str], budget: int = 15) -> float:
    """Share of gold titles among the titles of the first ``budget`` retrieved paragraphs.

    Titles are compared case-insensitively with whitespace collapsed; several
    paragraphs of the same page count once.

    Args:
        retrieved_titles: Titles of the retrieved paragraphs, in collection order.
        gold_titles: The question's gold titles (at least one).
        budget: How many retrieved paragraphs count.

    Returns:
        |gold titles ∩ titles of retrieved[:budget]| / |gold titles|, in [0, 1].

    Raises:
        DataError: ``gold_titles`` is empty (recall is undefined).
        ValueError: ``budget`` is not a positive integer.
    """
    _check_budget(budget, "title_recall")
    gold = {_title_key(t) for t in gold_titles}
    if not gold:
        raise DataError("title_recall: no gold titles, so recall is undefined; "
                        "skip questions without gold titles")
    found = {_title_key(t) for t in retrieved_titles[:budget]}
    return len(gold & found) / len(gold)


def answer_recall(retrieved_texts: Sequence[str], golds: Sequence[str]) -> float:
    """Whether some gold answer appears anywhere in the retrieved text.

    The retrieved texts are joined with spaces and normalised; a gold answer must
    occur on word boundaries (as in :func:`cover_em`). The caller applies any
    budget by passing only the paragraphs that count.

    Args:
        retrieved_texts: Texts (title and/or body) of the retrieved paragraphs.
        golds: The gold answer and its aliases (at least one).

    Returns:
        1.0 if some normalised gold answer occurs in the retrieved text, else 0.0
        (always 0.0 when nothing was retrieved).

    Raises:
        DataError: ``golds`` is empty.
        TypeError: ``golds`` is a single string instead of a sequence.
    """
    _check_golds(golds, "answer_recall")
    if not retrieved_texts:
        return 0.0
    haystack = normalize_answer(" ".join(retrieved_texts))
    return 1.0 if any(_contains_tokens(haystack, normalize_answer(g)) for g in golds) else 0.0


def _longest_common_subsequence(first: Sequence[str], second: Sequence[str]) -> int:
    """The length of the longest common subsequence of two token lists (two rows of the table)."""
    if len(second) > len(first):
        first, second = second, first
    previous = [0] * (len(second) + 1)
    for token in first:
        current = [0]
        for j, other in enumerate(second, start=1):
            current.append(previous[j - 1] + 1 if token == other else max(previous[j], current[j - 1]))
        previous = current
    return previous[-1]


def rouge_l(prediction: str, reference: str) -> float:
    """ROUGE-L F1 (Lin 2004): the longest common subsequence of the two texts' tokens.

    Tokens are those of :func:`normalize_answer` (lowercased, no punctuation, no
    articles). With L the subsequence's length, precision is L / len(prediction),
    recall L / len(reference), and the score their harmonic mean (beta = 1). SearChain
    compares a long-form answer with its node's passage by it (alpha = 0.35) and the
    paper scores ELI5 with it.

    Args:
        prediction: the generated text.
        reference: the text it is compared with.

    Returns:
        The F1 in [0, 1]; 0.0 when either side has no token.
    """
    predicted = normalize_answer(prediction).split()
    referenced = normalize_answer(reference).split()
    if not predicted or not referenced:
        return 0.0
    common = _longest_common_subsequence(predicted, referenced)
    if common == 0:
        return 0.0
    precision = common / len(predicted)
    recall = common / len(referenced)
    return 2 * precision * recall / (precision + recall)
