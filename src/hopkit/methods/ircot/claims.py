"""What the IRCoT paper (Trivedi et al., ACL 2023) reports against its baselines: IRCoT's retrieval
recalls more than one-step retrieval (Fig. 3), and IRCoT QA scores a higher answer F1 than OneR QA
and NoR QA (Fig. 4: "for both models on all datasets, except for GPT3 on IIRC")."""

from __future__ import annotations

from hopkit.methods.paper_claims import PaperClaim

DATASETS = ("hotpotqa", "2wikimultihopqa", "musique", "iirc")

CLAIMS = (
    PaperClaim("ircot", "oner", "above", "paragraph_recall", "IRCoT, Fig. 3", DATASETS),
    PaperClaim("ircot", "oner", "above", "f1", "IRCoT, Fig. 4", DATASETS),
    PaperClaim("ircot", "nor", "above", "f1", "IRCoT, Fig. 4", DATASETS),
)
