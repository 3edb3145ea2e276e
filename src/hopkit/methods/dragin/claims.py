"""What the DRAGIN paper (Su et al., ACL 2024) claims against FLARE, the dynamic-retrieval method
closest to it: a higher exact match (its Table 2: 2WikiMultihopQA, HotpotQA and StrategyQA) at fewer
retrievals. The exact match is checked here, paired; the retrievals are a cost, set beside the paired
test in the notebook's agents-2025 section."""

from __future__ import annotations

from hopkit.methods.paper_claims import PaperClaim

CLAIMS = (
    PaperClaim("dragin", "flare", "above", "em", "DRAGIN, Table 2 (FLARE)",
               ("2wikimultihopqa", "hotpotqa", "strategyqa")),
)
