"""Retrieve once with the question, then answer, as published: FlashRAG's "Standard RAG" (the result sheet's Base
tab, :mod:`hopkit.methods.flashrag_benchmark`), the Search-R1 paper's "RAG" (:mod:`hopkit.methods.search_r1_paper`)
and the Adaptive-RAG paper's "Single-step Approach" (:mod:`hopkit.methods.adaptive_rag_paper`); each module says
where and in which setting its numbers were read."""

from __future__ import annotations

from hopkit.methods import adaptive_rag_paper, search_r1_paper
from hopkit.methods.flashrag_benchmark import sheet_rows

PUBLISHED = (
    *sheet_rows("oner", "oner", "Standard RAG", {
        "nq": (35.1, 47.0), "triviaqa": (58.9, 68.3), "hotpotqa": (25.1, 35.3), "2wikimultihopqa": (8.6, 21.0),
        "popqa": (21.7, 36.7)}),
    *search_r1_paper.table_rows("oner", "oner", "RAG"),
    *adaptive_rag_paper.table_rows("oner", "oner", "Single-step Approach"),
)
