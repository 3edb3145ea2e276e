"""IRCoT as published by others: FlashRAG's IRCoT row (the result sheet's Base tab,
:mod:`hopkit.methods.flashrag_benchmark`), the Search-R1 paper's IRCoT baseline
(:mod:`hopkit.methods.search_r1_paper`) and the Adaptive-RAG paper's "Multi-step Approach", which is IRCoT
(:mod:`hopkit.methods.adaptive_rag_paper`); each module says where and in which setting its numbers were read."""

from __future__ import annotations

from hopkit.methods import adaptive_rag_paper, search_r1_paper
from hopkit.methods.flashrag_benchmark import sheet_rows

PUBLISHED = (
    *sheet_rows("ircot", "ircot", "IRCoT", {
        "nq": (33.3, 45.9), "triviaqa": (56.9, 66.1), "hotpotqa": (30.6, 41.5), "2wikimultihopqa": (24.2, 32.4),
        "popqa": (33.7, 45.6)},
        note="one demonstration (IRCoT's 2WikiMultihopQA file), at most 2 iterations (baseline_details.md)"),
    *search_r1_paper.table_rows("ircot", "ircot", "IRCoT"),
    *adaptive_rag_paper.table_rows("ircot", "ircot", "Multi-step Approach",
                                   note="the multi-step approach is IRCoT (Trivedi et al. 2023)"),
)
