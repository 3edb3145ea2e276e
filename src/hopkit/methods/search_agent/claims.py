"""What the Search-R1 paper (Jin et al., 2025, "Search-R1: Training LLMs to Reason and Leverage Search
Engines with Reinforcement Learning", arXiv 2503.09516v5) reports in its Table 2, exact match at
Qwen2.5-3B, on NQ, TriviaQA, PopQA, HotpotQA, 2WikiMultihopQA, MuSiQue and Bamboogle, as
:mod:`hopkit.methods.search_r1_paper` declares the table (from two transcriptions of v5's Table 2 that agree
to the digit; the arXiv page itself could not be read here). The claims are its orderings, each a run hopkit
makes:

* RAG, retrieve once with the question and answer (top-3 E5 passages) is hopkit's ``oner`` (BM25, K=5,
  its few-shot reader); IRCoT is ``ircot``; Search-o1 is ``search-o1``; Search-R1 is the ``search-r1``
  template of the search agent, run prompted on an instruct model (no reinforcement learning), so its
  claims are Search-R1-instruct's row's (the base model's row orders otherwise against RAG on NQ and
  PopQA, where it is above, against IRCoT on MuSiQue and Bamboogle and against Search-o1 on MuSiQue,
  where it is below).
* RAG above IRCoT and above Search-o1 are the paper's claims about two of its baselines, so they name
  ``search-r1`` as their :attr:`~hopkit.methods.paper_claims.PaperClaim.paper`: ``hopkit claims search-r1``
  checks them with Search-R1's own, and they appear on its page (docs/claims/search-r1.md).

At Qwen2.5-7B the table puts RAG above IRCoT and Search-o1 on HotpotQA too (0.299, 0.133, 0.187) and
Search-R1 (base and instruct) above RAG on every dataset; hopkit's runs are of a 1.5B model, nearer the
3B rows. R1-Searcher's and AutoRefine's papers make no claim here: their
tables were not read from a source hopkit can cite.
"""

from __future__ import annotations

from hopkit.methods import search_r1_paper
from hopkit.methods.paper_claims import PaperClaim, claims_from_table

SOURCE = "Search-R1 v5, Table 2, Qwen2.5-3B"
PAPER = "search-r1"
DATASETS = search_r1_paper.DATASETS
#: Table 2's Qwen2.5-3B rows, by hopkit's run name, in the order of :data:`DATASETS`.
TABLE_2_3B = {run: search_r1_paper.TABLE_2[row, "3b"] for run, row in (
    ("ircot", "IRCoT"), ("search-o1", "Search-o1"), ("oner", "RAG"), ("search-r1", "Search-R1-instruct"))}


def table_2_claims(subject: str, baseline: str) -> tuple[PaperClaim, ...]:
    """``subject`` against ``baseline`` on exact match as Table 2's 3B rows order them."""
    scores = {dataset: (ours, theirs)
              for dataset, ours, theirs in zip(DATASETS, TABLE_2_3B[subject], TABLE_2_3B[baseline])}
    return claims_from_table(subject, baseline, "em", SOURCE, scores, PAPER)


CLAIMS = (*table_2_claims("search-r1", "oner"), *table_2_claims("search-r1", "ircot"),
          *table_2_claims("search-r1", "search-o1"), *table_2_claims("oner", "ircot"),
          *table_2_claims("oner", "search-o1"))
