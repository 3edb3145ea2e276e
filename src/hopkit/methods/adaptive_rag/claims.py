"""Where the 2025 comparison tables put Adaptive-RAG on multi-hop QA: FlashRAG's Llama3-8B table has, on
HotpotQA (exact match), IRCoT 30.6 above Adaptive-RAG 28.0, above ITER-RETGEN 27.7, above FLARE 19.7.
The paper's own claim (IRCoT's accuracy at a fraction of IRCoT's steps and time) is a pair of a tie
and a cost, which the cost tables show beside these."""

from __future__ import annotations

from hopkit.methods.paper_claims import PaperClaim

SOURCE = "FlashRAG, Llama3-8B table (HotpotQA EM: IRCoT 30.6, Adaptive-RAG 28.0, ITER-RETGEN 27.7, FLARE 19.7)"

CLAIMS = (
    PaperClaim("adaptive-rag", "ircot", "below", "em", SOURCE, ("hotpotqa",)),
    PaperClaim("adaptive-rag", "iter-retgen", "above", "em", SOURCE, ("hotpotqa",)),
    PaperClaim("adaptive-rag", "flare", "above", "em", SOURCE, ("hotpotqa",)),
)
