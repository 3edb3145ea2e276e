"""The claims pages' paired comparisons, replayed as anytime-valid sequences: at which n each would have been
decided, against the questions spent (``python -m benchmarks.report_bench --anytime-saved-runs``).

The comparisons are those of ``docs/claims/*.md`` (:mod:`hopkit.campaign.reader_pages`): the saved runs restored
into a scratch store, each paper's claims checked by :class:`hopkit.claim_checks.ClaimChecker`, whose
comparisons carry the sequence over the questions in the dataset's stored order. A comparison that appears on
two pages (the same runs, metric and dataset) counts once.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from statistics import median
from typing import Any

from hopkit.campaign.page_sections import markdown_table
from hopkit.campaign.qa_sections import SAMPLES
from hopkit.campaign.reader_pages import ALSO_CHECKED, variant_runs
from hopkit.claim_checks import ClaimChecker, claim_pages
from hopkit.judging_runs import choose_judge
from hopkit.report.table import metric_header
from hopkit.store.store import Store
from hopkit.store.verdicts import VerdictStore


@dataclass(frozen=True)
class Replayed:
    """One comparison of a claims page: who, on what, the questions spent, the fixed-n p and the anytime stop."""

    page: str
    who: str
    metric: str
    dataset: str
    n: int
    p_value: float
    difference: float
    decided_at: int | None
    anytime_p: float

    @property
    def pooled(self) -> bool:
        return self.dataset.startswith("pooled")


def replayed(session_factory: Any) -> list[Replayed]:
    """Every distinct comparison the claims pages make, with its sequence's stop."""
    store, verdicts = Store(session_factory), VerdictStore(session_factory)
    runs_of = variant_runs(session_factory)
    variant_ids = set(runs_of.values())
    judge = choose_judge(verdicts, [run.run_id for run in store.runs() if run.run_id in variant_ids])  # as the pages
    seen: dict[tuple[str, ...], Replayed] = {}
    for page, claims in claim_pages().items():
        checker = ClaimChecker(store, verdicts, None if judge is None else judge.model_id, runs_of)
        also = ALSO_CHECKED.get(page, {})
        for check in checker.check([*claims, *(replace(claim, subject=v) for v in also for claim in claims)], SAMPLES):
            m = check.comparison
            if m is None or m.anytime is None:
                continue
            runs = ((check.subject_run.run_id, check.baseline_run.run_id) if check.subject_run and check.baseline_run
                    else (check.claim.subject, check.claim.baseline))
            key = (*sorted(runs), check.claim.metric, check.dataset)
            seen.setdefault(key, Replayed(page, f"{check.claim.subject} vs {check.claim.baseline}", check.claim.metric,
                                          check.dataset, m.n, m.p_value, m.difference.mean, m.anytime.decided_at,
                                          m.anytime.p_value))
    return list(seen.values())


def summary(rows: list[Replayed], command: str) -> str:
    """The docs/results.md section: counts, the questions a sequential stop would have spent, the decided rows."""
    lines = ["### The claims pages' comparisons, replayed as sequences", "",
             f"Command: `{command}`. Every distinct paired comparison of `docs/claims/*.md` (the saved runs of "
             "`benchmarks/results/runs`, Qwen2.5-Coder-1.5B), its questions taken in the dataset's stored order: "
             "the n at which the anytime-valid sequence first excluded 0, against the n spent.", "",
             markdown_table(["comparisons", "count", "questions spent", "fixed-n p < 0.05",
                             "decided by the sequence", "median n decided", "questions the stop would save"],
                            [_count_row(label, [r for r in rows if keep(r)])
                             for label, keep in (("per dataset", lambda r: not r.pooled),
                                                 ("pooled datasets", lambda r: r.pooled),
                                                 ("all", lambda r: True))]), "",
             "*Questions the stop would save*: the sum over decided comparisons of n spent minus n decided (a "
             "comparison counted alone; runs shared by several comparisons would be grown to the largest n any "
             "of them needs). A fixed-n p < 0.05 that the sequence does not reach is the price of looking at "
             "every question: the sequence is wider than the fixed-n interval.", ""]
    decided = sorted((r for r in rows if r.decided_at is not None), key=lambda r: (r.decided_at or 0, r.page, r.who))
    if decided:
        lines += ["Decided comparisons:", "",
                  markdown_table(["page", "comparison", "metric", "dataset", "n spent", "A-B", "fixed-n p",
                                  "decided at n", "anytime p"],
                                 [f"| {r.page} | {r.who} | {metric_header(r.metric)} | {r.dataset} | {r.n} | "
                                  f"{100 * r.difference:+.1f} | {_p(r.p_value)} | {r.decided_at} | "
                                  f"{_p(r.anytime_p)} |" for r in decided])]
    return "\n".join(lines) + "\n"


def _count_row(label: str, rows: list[Replayed]) -> str:
    decided = [r for r in rows if r.decided_at is not None]
    spent = sum(r.n for r in rows)
    saved = sum(r.n - (r.decided_at or r.n) for r in decided)
    middle = f"{median(r.decided_at or 0 for r in decided):.0f}" if decided else "-"
    return (f"| {label} | {len(rows)} | {spent:,} | {sum(r.p_value < 0.05 for r in rows)} | {len(decided)} | "
            f"{middle} | {saved:,} |")


def _p(value: float) -> str:
    return "<0.001" if value < 0.001 else f"{value:.3f}"
