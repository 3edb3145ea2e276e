"""FlashRAG's "Standard RAG" (retrieve once with the question, answer), the result sheet's Base tab:
:mod:`hopkit.methods.flashrag_benchmark` says where and in which setting it was read."""

from __future__ import annotations

from hopkit.methods.flashrag_benchmark import sheet_rows

PUBLISHED = sheet_rows("oner", "oner", "Standard RAG", {
    "nq": (35.1, 47.0), "triviaqa": (58.9, 68.3), "hotpotqa": (25.1, 35.3), "2wikimultihopqa": (8.6, 21.0),
    "popqa": (21.7, 36.7)})
