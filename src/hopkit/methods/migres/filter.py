"""MIGRES's Knowledge Filter (Section 3.2): passage-level reranking, then sentence-level filtering.

For the hits of one query:

1. hits the Memory Module has seen used twice are dropped before scoring (``used_twice``);
   with ``rerank_top`` = N (a cost lever, not the paper's), only the best N remaining hits
   by BM25 go on, the others are dropped unscored (``not_reranked``);
2. each remaining passage is scored against its query by the relevance judge (the
   paper's reranker) and dropped below the threshold δ (``below_threshold``);
3. sentence level (Table 5's "Sentence Filtering"): the passage is split into sentences,
   each scored against the same query; if the passage outscores each of its sentences it
   is kept whole, else the sentences at or above δ are kept (in their order).

δ is in the judge's own scale (a cross-encoder's logit, the LLM judge's log-odds).
What is shown to the judge is ``(Title: <title>) <text>``, as the Leaf Module shows it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Sequence

from hopkit.errors import ConfigError
from hopkit.judges.protocol import RelevanceJudge
from hopkit.judges.sentences import SentenceSplitter
from hopkit.records import ScoredParagraph


@dataclass(frozen=True)
class Knowledge:
    """A piece of knowledge for the Leaf Module: a passage, its kept sentences, or the LLM's own.

    Attributes:
        text: what the Leaf Module reads.
        query: the query it answers.
        title: its paragraph's title (None for LLM knowledge).
        paragraph_id: its corpus paragraph (None for LLM knowledge).
        relevance: its passage's score by the relevance judge (None for LLM knowledge).
        whole: whether the passage is kept whole (False: only some sentences).
    """

    text: str
    query: str
    title: str | None = None
    paragraph_id: int | None = None
    relevance: float | None = None
    whole: bool = True

    @property
    def memory_key(self) -> Hashable:
        """How the Memory Module counts its uses: the paragraph id, or the text of LLM knowledge."""
        return self.paragraph_id if self.paragraph_id is not None else self.text


def shown(title: str, text: str) -> str:
    """A passage or sentence as the relevance judge reads it."""
    return f"(Title: {title}) {text}"


class KnowledgeFilter:
    """Keeps the relevant passages of a retrieval, or their relevant sentences.

    Args:
        reranker: the relevance judge.
        threshold: δ, in the judge's scale.
        sentence_level: filter sentences too (False: Table 5's "w/o Sentence Filtering").
        splitter: the sentence splitter.
        rerank_top: score only the best this many hits of a query (by the retriever's
            order, after dropping the passages used twice) and drop the rest unscored;
            None scores every hit (the paper).

    Raises:
        ConfigError: ``rerank_top`` is neither None nor a positive integer.
    """

    def __init__(self, reranker: RelevanceJudge, threshold: float, sentence_level: bool,
                 splitter: SentenceSplitter, rerank_top: int | None = None) -> None:
        if rerank_top is not None and (isinstance(rerank_top, bool) or not isinstance(rerank_top, int)
                                       or rerank_top < 1):
            raise ConfigError(f"KnowledgeFilter: rerank_top must be a positive integer or None (every hit), "
                              f"got {rerank_top!r}")
        self.reranker = reranker
        self.threshold = threshold
        self.sentence_level = sentence_level
        self.splitter = splitter
        self.rerank_top = rerank_top

    def filter(self, query: str, hits: Sequence[ScoredParagraph],
               exhausted: Callable[[Hashable], bool]) -> tuple[list[Knowledge], list[dict[str, Any]]]:
        """The knowledge kept from ``hits``, best first, and what happened to each hit (for the trace).

        Args:
            query: the query the hits were retrieved for.
            hits: the retriever's hits, best first.
            exhausted: whether the Memory Module says a paragraph id is not to be given again.

        Returns:
            The kept knowledge sorted by relevance, and one record per hit in hit order:
            ``{"paragraph_id", "relevance", "outcome"}`` with the outcome ``kept_whole``,
            ``kept_sentences``, ``used_twice``, ``not_reranked`` (past ``rerank_top``) or
            ``below_threshold`` (and, for ``kept_sentences``, ``sentences`` kept of ``of``).
            The passages the judge scored are those with a relevance.
        """
        fresh = [hit for hit in hits if not exhausted(hit.id)]
        scored = fresh if self.rerank_top is None else fresh[:self.rerank_top]
        scores = self.reranker.relevance(query, [shown(h.paragraph.title, h.paragraph.text) for h in scored])
        relevance = {hit.id: float(score) for hit, score in zip(scored, scores)}
        fresh_ids = {hit.id for hit in fresh}
        kept: list[Knowledge] = []
        outcomes: list[dict[str, Any]] = []
        for hit in hits:
            score = relevance.get(hit.id)
            if score is None:
                outcome = "not_reranked" if hit.id in fresh_ids else "used_twice"
                outcomes.append({"paragraph_id": hit.id, "relevance": None, "outcome": outcome})
                continue
            if score < self.threshold:
                outcomes.append({"paragraph_id": hit.id, "relevance": score, "outcome": "below_threshold"})
                continue
            knowledge, outcome = self.keep_sentences(query, hit, score)
            outcomes.append({"paragraph_id": hit.id, "relevance": score, **outcome})
            kept.append(knowledge)
        kept.sort(key=lambda k: -(k.relevance or 0.0))
        return kept, outcomes

    def keep_sentences(self, query: str, hit: ScoredParagraph, score: float) -> tuple[Knowledge, dict[str, Any]]:
        """The sentence level alone, for a passage the judge scored ``score``: the passage whole, or its
        sentences at or above δ (ALCE's VANILLA-s uses it on the top passages)."""
        paragraph = hit.paragraph
        whole = Knowledge(paragraph.text, query, paragraph.title, paragraph.id, score)
        if not self.sentence_level:
            return whole, {"outcome": "kept_whole"}
        sentences = self.splitter.split(paragraph.text)
        if len(sentences) <= 1:
            return whole, {"outcome": "kept_whole"}
        sentence_scores = self.reranker.relevance(query, [shown(paragraph.title, s) for s in sentences])
        if all(score > s for s in sentence_scores):
            return whole, {"outcome": "kept_whole"}
        # some sentence scores at least the passage's score, itself >= δ: ``chosen`` is never empty
        chosen = [s for s, s_score in zip(sentences, sentence_scores) if s_score >= self.threshold]
        return (Knowledge(" ".join(chosen), query, paragraph.title, paragraph.id, score, whole=False),
                {"outcome": "kept_sentences", "sentences": len(chosen), "of": len(sentences)})


def coverage_threshold(best_scores: Sequence[float], coverage: float = 0.8) -> float:
    """δ by the paper's rule (Table 11): the largest threshold at which at least ``coverage``
    of the questions keep a passage.

    Args:
        best_scores: for each question (not in the benchmark), the best relevance score of
            the passages retrieved with it, in the judge's scale.
        coverage: the share of questions that must keep at least one passage (0.8).

    Raises:
        ValueError: no scores, or ``coverage`` not in (0, 1].
    """
    if not best_scores:
        raise ValueError("coverage_threshold needs the best score of at least one question")
    if not 0 < coverage <= 1:
        raise ValueError(f"coverage must be in (0, 1], got {coverage}")
    ranked = sorted(best_scores, reverse=True)
    return float(ranked[math.ceil(coverage * len(ranked)) - 1])
