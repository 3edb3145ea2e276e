"""FlashRAG's "Naive Generation" (the model answers with no retrieval), the result sheet's Base tab:
:mod:`hopkit.methods.flashrag_benchmark` says where and in which setting it was read."""

from __future__ import annotations

from hopkit.methods.flashrag_benchmark import sheet_rows

PUBLISHED = sheet_rows("nor", "nor", "Naive Generation", {
    "nq": (22.6, 33.0), "triviaqa": (55.7, 63.1), "hotpotqa": (20.0, 28.4), "2wikimultihopqa": (26.4, 33.9),
    "popqa": (18.7, 21.7)})
