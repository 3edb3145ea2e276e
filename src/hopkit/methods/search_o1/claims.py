"""What the Search-o1 paper (Li et al., 2025, "Search-o1: Agentic Search-Enhanced Large Reasoning
Models", arXiv 2501.05366) reports on open-domain QA in its Table 3, exact match with QwQ-32B-Preview
(read from a stored copy of the arXiv paper):

==================  ====  ========  ========  =====  =======  =========
row                 NQ    TriviaQA  HotpotQA  2WIKI  MuSiQue  Bamboogle
==================  ====  ========  ========  =====  =======  =========
QwQ-32B (direct)    23.0  53.8      25.4      34.4   9.0      38.4
RAG-QwQ-32B         29.6  65.6      34.2      35.6   10.6     55.2
RAgent-QwQ-32B      33.6  62.0      43.0      58.4   13.6     52.0
Search-o1           34.0  63.4      45.2      58.0   16.6     56.0
==================  ====  ========  ========  =====  =======  =========

Each baseline is mapped to the run hopkit makes of the same idea with the run's own model:

* QwQ-32B's direct reasoning, no retrieval, is ``nor``.
* RAG-QwQ-32B, the top-10 documents retrieved once with the question and read before reasoning, is
  ``oner`` (BM25, K=5, its few-shot reader): the standard retrieve-once baseline, as in the Search-R1
  paper's claims (hopkit.methods.search_agent.claims).
* RAgent-QwQ-32B, Search-o1's loop writing the documents into the reasoning without Reason-in-Documents,
  has no run in hopkit (Search-o1 has no option that leaves Reason-in-Documents out), so its claims
  (Search-o1 above it on every dataset but 2WIKI, where it is below) are not declared; neither are the
  rows of the other models (Qwen2.5-32B, Qwen2.5-72B, Llama3.3-70B), which set models side by side.

The F1 columns order these rows as EM does; the claims are on EM, the metric the paper's text compares
(Search-o1 "exceeds RAG-QwQ-32B and RAgent-QwQ-32B by 29.6% and 5.3%" in average EM on the multi-hop
datasets).
"""

from __future__ import annotations

from hopkit.methods.paper_claims import PaperClaim, claims_from_table

SOURCE = "Search-o1, Table 3, QwQ-32B"
DATASETS = ("nq", "triviaqa", "hotpotqa", "2wikimultihopqa", "musique", "bamboogle")
#: Table 3's EM, by hopkit's run name, in the order of :data:`DATASETS`.
TABLE_3 = {
    "nor": (23.0, 53.8, 25.4, 34.4, 9.0, 38.4),
    "oner": (29.6, 65.6, 34.2, 35.6, 10.6, 55.2),
    "search-o1": (34.0, 63.4, 45.2, 58.0, 16.6, 56.0),
}


def table_3_claims(baseline: str) -> tuple[PaperClaim, ...]:
    """Search-o1 against ``baseline`` on exact match as Table 3 orders them."""
    scores = {dataset: (ours, theirs)
              for dataset, ours, theirs in zip(DATASETS, TABLE_3["search-o1"], TABLE_3[baseline])}
    return claims_from_table("search-o1", baseline, "em", SOURCE, scores)


CLAIMS = (*table_3_claims("oner"), *table_3_claims("nor"))
