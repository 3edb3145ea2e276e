"""Adaptive-RAG as published: FlashRAG's row (the result sheet's Base tab, :mod:`hopkit.methods.flashrag_benchmark`)
and the authors' own with FLAN-T5-XL (arXiv 2403.14403v2, Table 2, :mod:`hopkit.methods.adaptive_rag_paper`); each
module says where and in which setting its numbers were read."""

from __future__ import annotations

from hopkit.methods import adaptive_rag_paper
from hopkit.methods.flashrag_benchmark import sheet_rows

PUBLISHED = (
    *sheet_rows("adaptive-rag", "adaptive-rag", "Adaptive-RAG", {
        "nq": (35.1, 46.6), "triviaqa": (56.6, 65.6), "hotpotqa": (28.0, 39.1), "2wikimultihopqa": (18.6, 28.4),
        "popqa": (27.5, 40.4)},
        note="the query classifier is a checkpoint trained by others, the authors publishing none "
             "(baseline_details.md)"),
    *adaptive_rag_paper.table_rows("adaptive-rag", "adaptive-rag", "Adaptive-RAG (Ours)",
                                   note="the authors' T5-Large query classifier"),
)
