"""What the MIGRES paper (Wang et al., 2024) reports against its baselines: Table 3, zero-shot MIGRES
against ALCE's zero-shot readers and the few-shot ReAct, Self-Ask and ITER-RETGEN, on EM and Acc†."""

from __future__ import annotations

from hopkit.methods.paper_claims import PaperClaim, claims_from_table

SOURCE = "MIGRES, Table 3"
#: Table 3's rows on the datasets hopkit loads: (EM, Acc†) on WikiHop, HotpotQA, MuSiQue and StrategyQA.
TABLE_3 = {
    "migres": ((33.6, 58.5), (38.0, 66.6), (18.6, 32.8), (73.4, 73.4)),
    "alce-vanilla": ((24.5, 45.5), (27.5, 60.5), (10.5, 26.0), (62.9, 62.9)),
    "alce-vanilla-s": ((26.5, 48.5), (28.0, 62.0), (11.5, 27.5), (65.5, 65.5)),
    "alce-summ": ((25.5, 52.0), (25.5, 56.0), (10.0, 29.5), (62.9, 62.9)),
    "alce-snippet": ((26.0, 50.5), (29.5, 61.5), (10.5, 27.5), (62.0, 62.0)),
    "alce-rerank": ((28.5, 56.0), (30.0, 63.0), (12.5, 30.0), (65.9, 65.9)),
    "react-shao": ((28.0, 45.9), (24.9, 61.1), (23.4, 37.9), (66.9, 66.9)),
    "self-ask": ((37.3, 55.9), (36.8, 64.8), (27.6, 42.9), (70.2, 70.2)),
    "iter-retgen": ((34.9, 58.1), (44.1, 71.2), (26.4, 41.0), (73.0, 73.0)),
}
DATASETS = ("2wikimultihopqa", "hotpotqa", "musique", "strategyqa")


def table_3_claims(subject: str, baseline: str) -> tuple[PaperClaim, ...]:
    """``subject`` against ``baseline`` as Table 3 reports them, on EM and on Acc† (the LLM judge)."""
    claims: list[PaperClaim] = []
    for column, metric in enumerate(("em", "llm_accuracy")):
        scores = {dataset: (ours[column], theirs[column])
                  for dataset, ours, theirs in zip(DATASETS, TABLE_3[subject], TABLE_3[baseline])}
        claims.extend(claims_from_table(subject, baseline, metric, SOURCE, scores))
    return tuple(claims)


CLAIMS = tuple(claim for baseline in TABLE_3 if baseline != "migres"
               for claim in table_3_claims("migres", baseline))
