"""A paper's claims, as checked on stored runs: one table (terminal and Markdown), a tally and JSON."""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Sequence

from hopkit.claim_checks import HOLDS, NOT_JUDGED, NOT_RUN, REVERSED, ClaimCheck
from hopkit.report.escape import markdown_cell
from hopkit.report.paired import anytime_cells
from hopkit.report.table import Cell, Column, Table, metric_header, to_markdown

RULE = ("Verdict rule: \"holds\" where the paired test gives p < 0.05 and the difference points the paper's "
        "way, \"reversed\" where p < 0.05 and it points the other way, \"cannot tell at n = N\" otherwise "
        "(N questions do not show a difference either way). p: the exact McNemar test for 0/1 metrics (EM, "
        "cover-EM, LLM Acc), the paired sign-flip permutation test for F1 and recall; the interval is the "
        "paired bootstrap's, which with few questions can leave out 0 where the test does not reach 0.05. "
        "Pooled rows pair every question of the datasets above them. No correction for multiple comparisons: "
        "of many claims checked, one in twenty shows p < 0.05 by chance alone. anytime [95%], anytime p, decided "
        "at n: the anytime-valid confidence sequence of the difference (valid at every n at once, in the "
        "dataset's stored question order), its p-value, and the first n at which it excluded 0 (- : not yet); "
        "a column beside the fixed-n test, which gives the verdict.")


def _points(value: float) -> str:
    return f"{100 * value:+.1f}"


def claims_table(checks: Sequence[ClaimCheck]) -> Table:
    """One row per claim and dataset: the runs' means, the difference with its interval, wins, p, the
    paper's direction and the verdict."""
    columns = (Column("claim", "claim", "text"), Column("metric", "metric", "text"),
               Column("dataset", "dataset", "text"), Column("n", "n", "text"),
               Column("subject", "subject %", "text"), Column("baseline", "baseline %", "text"),
               Column("difference", "difference [95%]", "text"), Column("won", "won/lost", "text"),
               Column("p", "p", "text"), Column("anytime_cs", "anytime [95%]", "text"),
               Column("anytime_p", "anytime p", "text"), Column("decided_at", "decided at n", "text"),
               Column("paper", "paper", "text"), Column("verdict", "verdict", "text"))
    rows: list[tuple[Cell, ...]] = []
    for check in checks:
        claim, m = check.claim, check.comparison
        who = f"{claim.subject} vs {claim.baseline}"
        paper = f"{claim.direction} ({claim.source})"
        if m is None:
            rows.append((who, metric_header(claim.metric), check.dataset, "-", "-", "-", "-", "-", "-", "-", "-", "-",
                         paper, check.verdict))
            continue
        rows.append((who, metric_header(claim.metric), check.dataset, str(m.n), f"{100 * m.mean_a:.1f}",
                     f"{100 * m.mean_b:.1f}",
                     f"{_points(m.difference.mean)} [{_points(m.difference.low)}, {_points(m.difference.high)}]",
                     f"{m.won}/{m.lost}", "<0.001" if m.p_value < 0.001 else f"{m.p_value:.3f}",
                     *anytime_cells(m), paper, check.verdict))
    return Table(columns, tuple(rows))


def tally(checks: Sequence[ClaimCheck]) -> str:
    """``"12 checks: 2 hold, 1 reversed, 8 cannot tell, 1 not run"`` (pooled rows counted too)."""
    counts = Counter("cannot tell" if check.verdict.startswith("cannot tell") else check.verdict for check in checks)
    parts = [f"{counts[HOLDS]} hold", f"{counts[REVERSED]} reversed", f"{counts['cannot tell']} cannot tell"]
    parts += [f"{counts[kind]} {kind}" for kind in (NOT_RUN, NOT_JUDGED) if counts[kind]]
    return f"{len(checks)} checks: " + ", ".join(parts)


def notes(checks: Sequence[ClaimCheck]) -> list[str]:
    """What each row without a comparison needs, and which runs were chosen where several had the name."""
    found = []
    for check in checks:
        if check.note:
            found.append(f"{check.claim.subject} vs {check.claim.baseline}, {check.dataset}: {check.note}")
    return list(dict.fromkeys(found))


def claims_json(subject: str, checks: Sequence[ClaimCheck]) -> dict[str, Any]:
    """Every check as plain data (the runs by id)."""
    rows = []
    for check in checks:
        m = check.comparison
        rows.append({
            "subject": check.claim.subject, "baseline": check.claim.baseline, "metric": check.claim.metric,
            "paper": check.claim.direction, "source": check.claim.source, "dataset": check.dataset,
            "subject_run": check.subject_run.run_id if check.subject_run else None,
            "baseline_run": check.baseline_run.run_id if check.baseline_run else None,
            "verdict": check.verdict, "note": check.note,
            **({} if m is None else {"n": m.n, "subject_mean": m.mean_a, "baseline_mean": m.mean_b,
                                     "difference": m.difference.mean, "low": m.difference.low,
                                     "high": m.difference.high, "won": m.won, "lost": m.lost,
                                     "p": m.p_value, "test": m.test,
                                     **({} if m.anytime is None else {
                                         "anytime_low": m.anytime.low, "anytime_high": m.anytime.high,
                                         "anytime_p": m.anytime.p_value, "e_value": m.anytime.e_value,
                                         "decided_at": m.anytime.decided_at})}),
        })
    return {"subject": subject, "rule": RULE, "tally": tally(checks), "checks": rows}


def claims_markdown(subject: str, checks: Sequence[ClaimCheck], absent: Iterable[str] = (),
                    facts: Sequence[str] = ()) -> str:
    """The claims of ``subject`` as checked: title, tally, table, what the missing rows need (written by
    :func:`~hopkit.report.escape.markdown_cell`, since they name runs), ``facts`` about the checked runs (one
    paragraph each, Markdown as given: where a router sent its questions), the rule."""
    missing = sorted(absent)
    lines = [*notes(checks), *([f"not in the store, not checked: {', '.join(missing)}"] if missing else [])]
    return "\n\n".join([f"# Claims of {markdown_cell(subject)}, checked on stored runs", tally(checks),
                         to_markdown(claims_table(checks)).rstrip(), *(f"- {markdown_cell(line)}" for line in lines),
                         *facts, RULE]) + "\n"
