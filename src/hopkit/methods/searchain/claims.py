"""What the SearChain paper (Xu et al., WWW 2024) reports against its baselines: Table 1, cover-EM on
the four multi-hop sets, SearChain above Direct Prompting (NoR), Direct Retrieval (OneR), Self-Ask and
its own ablations without Verification and without Completion."""

from __future__ import annotations

from hopkit.methods.paper_claims import PaperClaim, claims_from_table

SOURCE = "SearChain, Table 1"
DATASETS = ("hotpotqa", "musique", "2wikimultihopqa", "strategyqa")
#: Table 1's cover-EM on HotpotQA, MuSiQue, 2WikiMultihopQA and StrategyQA (hopkit's run names).
TABLE_1 = {
    "searchain": (56.91, 17.07, 46.27, 76.95),
    "nor": (31.95, 5.91, 25.82, 66.25),
    "oner": (34.09, 10.22, 30.01, 66.78),
    "self-ask": (40.05, 14.28, 39.58, 67.65),
    "searchain-no-verification": (46.11, 14.70, 42.67, 75.98),
    "searchain-no-completion": (53.05, 15.86, 43.64, 76.53),
}

CLAIMS: tuple[PaperClaim, ...] = tuple(
    claim for baseline, theirs in TABLE_1.items() if baseline != "searchain"
    for claim in claims_from_table("searchain", baseline, "cover_em", SOURCE,
                                   dict(zip(DATASETS, zip(TABLE_1["searchain"], theirs)))))
