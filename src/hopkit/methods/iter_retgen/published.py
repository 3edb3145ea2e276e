"""FlashRAG's Iter-Retgen row, the result sheet's Base tab: :mod:`hopkit.methods.flashrag_benchmark` says where
and in which setting it was read."""

from __future__ import annotations

from hopkit.methods.flashrag_benchmark import sheet_rows

PUBLISHED = sheet_rows("iter-retgen", "iter-retgen", "Iter-Retgen", {
    "nq": (36.8, 48.0), "triviaqa": (60.1, 69.2), "hotpotqa": (27.7, 38.3), "2wikimultihopqa": (9.9, 21.6),
    "popqa": (22.4, 37.9)})
