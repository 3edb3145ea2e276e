"""FlashRAG's FLARE row, the result sheet's Base tab: :mod:`hopkit.methods.flashrag_benchmark` says where and
in which setting it was read."""

from __future__ import annotations

from hopkit.methods.flashrag_benchmark import sheet_rows

PUBLISHED = sheet_rows("flare", "flare", "FLARE", {
    "nq": (22.5, 32.4), "triviaqa": (55.8, 63.2), "hotpotqa": (19.7, 28.0), "2wikimultihopqa": (25.8, 33.9),
    "popqa": (18.1, 20.7)})
