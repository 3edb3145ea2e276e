"""The model answering with no retrieval, as published: FlashRAG's "Naive Generation" (the result sheet's Base tab,
:mod:`hopkit.methods.flashrag_benchmark`), the Search-R1 paper's "Direct Inference"
(:mod:`hopkit.methods.search_r1_paper`) and the Adaptive-RAG paper's "No Retrieval"
(:mod:`hopkit.methods.adaptive_rag_paper`); each module says where and in which setting its numbers were read."""

from __future__ import annotations

from hopkit.methods import adaptive_rag_paper, search_r1_paper
from hopkit.methods.flashrag_benchmark import sheet_rows

PUBLISHED = (
    *sheet_rows("nor", "nor", "Naive Generation", {
        "nq": (22.6, 33.0), "triviaqa": (55.7, 63.1), "hotpotqa": (20.0, 28.4), "2wikimultihopqa": (26.4, 33.9),
        "popqa": (18.7, 21.7)}),
    *search_r1_paper.table_rows("nor", "nor", "Direct Inference"),
    *adaptive_rag_paper.table_rows("nor", "nor", "No Retrieval"),
)
