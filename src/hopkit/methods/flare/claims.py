"""What the FLARE paper (Jiang et al., EMNLP 2023, arXiv 2305.06983) reports against its baselines on
multi-hop QA: on 2WikiMultihopQA, FLARE's exact match (51.0 with text-davinci-003) is above
single-time retrieval's (39.4), which is above no retrieval's (Fig. 4). hopkit's OneR and NoR are
those two baselines (retrieve once with the question; no retrieval). The paper is not one of hopkit's
source documents: the numbers are its published figure's."""

from __future__ import annotations

from hopkit.methods.paper_claims import PaperClaim

CLAIMS = (
    PaperClaim("flare", "oner", "above", "em", "FLARE, Fig. 4 (single-time retrieval)", ("2wikimultihopqa",)),
    PaperClaim("flare", "nor", "above", "em", "FLARE, Fig. 4 (no retrieval)", ("2wikimultihopqa",)),
)
