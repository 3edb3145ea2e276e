"""A cheap similarity judge: the overlap of two texts' BM25 token sets.

The tokens are those of :func:`hopkit.retrieval.tokenize.tokenize` (lowercased,
English stopwords dropped, Snowball-stemmed): two queries with the same token set
retrieve exactly the same BM25 hits, which is what SearChain's duplicate-query check
is for, and "Who directed Titanic?" and "Titanic, who directed it" count as the same.
"""

from __future__ import annotations

from typing import Literal, Sequence

from hopkit.judges.protocol import SIMILARITY
from hopkit.judges.timing import timed
from hopkit.options import check_arguments
from hopkit.retrieval.tokenize import tokenize

Measure = Literal["f1", "jaccard"]


def token_overlap(first: frozenset[str], second: frozenset[str], measure: Measure) -> float:
    """The overlap of two token sets in [0, 1].

    Args:
        first: one text's tokens.
        second: the other's.
        measure: ``"f1"`` (2|A∩B| / (|A| + |B|), the F1 of one set against the other) or
            ``"jaccard"`` (|A∩B| / |A∪B|).

    Returns:
        The overlap; 1.0 for two empty sets (nothing tells them apart), 0.0 when only one is.
    """
    if not first and not second:
        return 1.0
    shared = len(first & second)
    if measure == "jaccard":
        return shared / len(first | second)
    return 2 * shared / (len(first) + len(second))


class LexicalSimilarity:
    """Similarity as the overlap of BM25 token sets (see the module docstring).

    Args:
        measure: ``"f1"`` (the default) or ``"jaccard"``.

    Raises:
        ConfigError: another measure.
    """

    def __init__(self, measure: Measure = "f1") -> None:
        check_arguments(LexicalSimilarity.__init__, "lexical similarity option", measure=measure)
        self.measure = measure
        self.judge_id = f"lexical:{measure}"

    @timed(SIMILARITY)
    def similarity(self, text: str, others: Sequence[str]) -> list[float]:
        """The token-set overlap of ``text`` with each other text."""
        tokens = frozenset(tokenize(text))
        return [token_overlap(tokens, frozenset(tokenize(other)), self.measure) for other in others]
