"""Where Adaptive-RAG (Jeong et al., NAACL 2024) stands among the multi-step methods on HotpotQA, as
FlashRAG's benchmark sheet with Llama3-8B-instruct ranks them by exact match: IRCoT (30.6) above
Adaptive-RAG (28.0) above ITER-RETGEN (27.7) above FLARE (19.7). The paper's own claim, IRCoT's
accuracy at a fraction of IRCoT's steps, is a claim of cost as much as of accuracy; docs/methods
and the notebook's agents-2025 section put the calls beside the paired test."""

from __future__ import annotations

from hopkit.methods.paper_claims import PaperClaim

SHEET = "FlashRAG, Llama3-8B sheet"

CLAIMS = (
    PaperClaim("adaptive-rag", "ircot", "below", "em", f"{SHEET} (IRCoT 30.6, Adaptive-RAG 28.0)", ("hotpotqa",)),
    PaperClaim("adaptive-rag", "iter-retgen", "above", "em", f"{SHEET} (ITER-RETGEN 27.7)", ("hotpotqa",)),
    PaperClaim("adaptive-rag", "flare", "above", "em", f"{SHEET} (FLARE 19.7)", ("hotpotqa",)),
)
