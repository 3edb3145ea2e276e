"""Paired comparison tables and the report's "Paired comparisons" section."""

from __future__ import annotations

from pathlib import Path

import pytest

from hopkit.evaluation.aggregate import QuestionCost, RunSummary, summarize_run
from hopkit.evaluation.compare import compare_scores
from hopkit.evaluation.scoring import QuestionScores
from hopkit.report.files import write_report
from hopkit.report.paired import ComparedPair, ScoredRun, paired_section, paired_table, verdict_sentence
from hopkit.report.table import to_text
from hopkit.usage import Usage

pytestmark = pytest.mark.unit

N = 10


def scores(right: set[int], f1_right: float = 1.0, para: float | None = 1.0) -> tuple[QuestionScores, ...]:
    return tuple(QuestionScores(f"q{i}", float(i in right), f1_right if i in right else 0.0, float(i in right),
                                para, para, None if para is None else float(i in right)) for i in range(N))


def scored(run_id: str, name: str, right: set[int], dataset: str = "hotpotqa",
           para: float | None = 1.0) -> ScoredRun:
    per_question = scores(right, para=para)
    summary = summarize_run(run_id, name, "oner", dataset, per_question, [QuestionCost(Usage())] * N)
    return ScoredRun(summary, per_question)


STRONG = scored("aaaaaaaa11111111", "strong", set(range(8)))  # right on q0-q7
WEAK = scored("bbbbbbbb22222222", "weak", {8})  # right on q8 only


def test_table_rows_hold_the_hand_computed_numbers() -> None:
    pair = ComparedPair("strong", "weak", compare_scores(STRONG.scores, WEAK.scores, metrics=("em",)))
    text = to_text(paired_table([pair]))
    header, _, row = text.splitlines()[:3]
    assert header.split() == ["A", "B", "Metric", "n", "A", "%", "B", "%", "A-B", "95%", "CI", "p", "Test",
                              "A", "won", "B", "won", "Tied", "At", "95%", "Anytime", "95%", "CS", "Anytime", "p",
                              "Decided", "at", "n"]
    # 8 won, 1 lost, 1 tied: McNemar p = 2 * 10 / 512 = 0.039
    assert row.split()[:6] == ["strong", "weak", "EM", "10", "80.0", "10.0"]
    assert "+70.0" in row and "0.039" in row and "McNemar exact" in row
    assert row.split()[-9:-4] == ["8", "1", "1", "strong", "higher"]
    # the anytime sequence, in stored order: 8 straight wins bring the capital to (1.5**8 + 0.5**8) / 2 = 12.8,
    # short of 1 / 0.05 = 20 (see tests/evaluation/test_anytime.py), so p = 1 / 12.8 and nothing decided
    assert row.split()[-2:] == ["0.078", "-"]
    assert [c.key for c in paired_table([pair], with_runs=False).columns][0] == "metric"


def test_verdict_sentence_names_the_higher_run_and_the_undecided_metrics() -> None:
    close = scored("cccccccc33333333", "close", set(range(7)))  # differs from strong on q7 only
    pair = ComparedPair("strong", "weak", compare_scores(STRONG.scores, WEAK.scores, metrics=("em",)))
    assert verdict_sentence(pair) == "At 95%, strong is higher than weak on EM (by 70.0 points, p = 0.039)."
    reversed_pair = ComparedPair("weak", "strong", compare_scores(WEAK.scores, STRONG.scores, metrics=("em",)))
    assert verdict_sentence(reversed_pair).startswith("At 95%, strong is higher than weak on EM")
    tie = ComparedPair("strong", "close", compare_scores(STRONG.scores, close.scores, metrics=("em", "f1")))
    assert verdict_sentence(tie) == "EM, F1: no difference distinguishable from noise at 95%."
    mixed = ComparedPair("weak", "strong", compare_scores(WEAK.scores, STRONG.scores))
    # EM, F1 and cover-EM favour strong; paragraph recall is 1 for both everywhere
    assert verdict_sentence(mixed) == (
        "At 95%, strong is higher than weak on EM (by 70.0 points, p = 0.039), F1 (by 70.0 points, "
        "p = 0.039), Cover-EM (by 70.0 points, p = 0.039) and Ans R@15 (by 70.0 points, p = 0.039). "
        "Para R@15, Title R@15: no difference distinguishable from noise at 95%.")


def test_section_compares_every_pair_per_dataset() -> None:
    closed_book = scored("dddddddd44444444", "nor", {0, 1}, para=None)
    other = scored("eeeeeeee55555555", "strong", set(range(5)), dataset="musique")
    section = paired_section([STRONG, WEAK, closed_book, other])
    assert section.startswith("## Paired comparisons\n")
    hotpot, musique = section.split("### hotpotqa")[1].split("### musique")
    # three runs: three pairs, in table order; nor has no recall, so that row is missing there
    assert hotpot.count("| strong | weak | EM |") == 1 and hotpot.count("| strong | nor | EM |") == 1
    assert hotpot.count("| weak | nor | EM |") == 1
    assert "| strong | weak | Para R@15 |" in hotpot and "| strong | nor | Para R@15 |" not in hotpot
    assert "One run (strong), nothing to compare." in musique
    assert "exact McNemar test" in section and "sign-flip" in section and "multiple comparisons" in section


def test_section_with_many_runs_compares_each_against_the_best() -> None:
    runs = [scored(f"{i:016x}", f"run{i}", set(range(i))) for i in range(1, 7)]  # run6 is best
    section = paired_section(runs)
    assert "6 runs: each against run6 (the highest F1)." in section
    assert section.count("| run6 | run1 | EM |") == 1 and "| run1 | run2 |" not in section
    assert section.count("| EM |") == 5


def test_runs_without_a_shared_question_are_named_not_compared() -> None:
    other_questions = ScoredRun(WEAK.summary, tuple(QuestionScores(f"x{i}", 1.0, 1.0, 1.0, None, None, None)
                                                    for i in range(3)))
    section = paired_section([STRONG, other_questions])
    assert "strong and weak share no attempted question; not compared." in section


def summary_only(run: ScoredRun) -> RunSummary:
    return run.summary


def test_report_markdown_gains_the_section_only_with_scores(tmp_path: Path) -> None:
    runs = [STRONG, WEAK]
    write_report([summary_only(r) for r in runs], tmp_path / "plain")
    assert "Paired comparisons" not in (tmp_path / "plain" / "comparison.md").read_text(encoding="utf-8")
    write_report([summary_only(r) for r in runs], tmp_path / "paired",
                 scores={r.summary.run_id: r.scores for r in runs})
    markdown = (tmp_path / "paired" / "comparison.md").read_text(encoding="utf-8")
    table, section = markdown.split("## Paired comparisons")
    assert "| strong | oner | hotpotqa |" in table
    assert "| strong | weak | EM | 10 | 80.0 | 10.0 | +70.0 |" in section
