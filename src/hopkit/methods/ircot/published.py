"""FlashRAG's IRCoT row, the result sheet's Base tab: :mod:`hopkit.methods.flashrag_benchmark` says where and in
which setting it was read."""

from __future__ import annotations

from hopkit.methods.flashrag_benchmark import sheet_rows

PUBLISHED = sheet_rows("ircot", "ircot", "IRCoT", {
    "nq": (33.3, 45.9), "triviaqa": (56.9, 66.1), "hotpotqa": (30.6, 41.5), "2wikimultihopqa": (24.2, 32.4),
    "popqa": (33.7, 45.6)},
    note="one demonstration (IRCoT's 2WikiMultihopQA file), at most 2 iterations (baseline_details.md)")
