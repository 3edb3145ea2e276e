"""FlashRAG's Adaptive-RAG row, the result sheet's Base tab: :mod:`hopkit.methods.flashrag_benchmark` says where
and in which setting it was read.

The Adaptive-RAG paper's own FLAN-T5-XL rows (arXiv 2403.14403, Tables 1 and 2) are not here: no copy of
the paper that could be read here holds their numbers as text (its HTML pages were stored only in part,
the tables as images), and the authors' repository (starsuzi/Adaptive-RAG) publishes predictions, not a
table."""

from __future__ import annotations

from hopkit.methods.flashrag_benchmark import sheet_rows

PUBLISHED = sheet_rows("adaptive-rag", "adaptive-rag", "Adaptive-RAG", {
    "nq": (35.1, 46.6), "triviaqa": (56.6, 65.6), "hotpotqa": (28.0, 39.1), "2wikimultihopqa": (18.6, 28.4),
    "popqa": (27.5, 40.4)},
    note="the query classifier is a checkpoint trained by others, the authors publishing none "
         "(baseline_details.md)")
