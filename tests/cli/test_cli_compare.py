"""``hopkit compare``, the report's paired comparisons, evaluate's cost columns and the
hints when no run is found, on a real SQLite store whose results are written directly
(no model: each run's answers are chosen, so the statistics are known by hand)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable

import pytest

from hopkit.evaluation.aggregate import RunSummary
from hopkit.evaluation.llm_judge import PROMPT_VERSION
from hopkit.scoring_runs import score_runs
from hopkit.store.connection import DBConnection
from hopkit.store.records import QueryResult, RunSpec
from hopkit.store.store import Store
from hopkit.store.verdicts import StoredVerdict, VerdictStore
from hopkit.usage import ComponentUsage, Usage

from .running import StoreCli

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "src" / "hopkit" / "quickstart" / "sample.jsonl"
# One question's cost: 2.0 s = 1.5 s model + 0.25 s retrieval + 0.25 s other; half the prompt cached.
USAGE = Usage(2.0, {"model": ComponentUsage(1, 0.0, 1, 1.5, prompt_tokens=400, cached_prompt_tokens=200,
                                            completion_tokens=10),
                    "retrieval": ComponentUsage(1, 0.25)})


class Hopkit(StoreCli):
    """Runs ``hopkit --db <url> ...`` in-process; ``store`` writes runs without a model."""

    def __init__(self, db: str, capsys: pytest.CaptureFixture[str]) -> None:
        super().__init__(db, capsys)
        self.store = Store.connect(db)

    def add_run(self, name: str, right: Iterable[int], *, dataset: str = "qs", only: Iterable[int] | None = None,
                retrieves: bool = False, option: int = 0) -> str:
        """A run answering questions ``only`` (default all) of ``dataset`` in stored order, right on ``right``."""
        config = {"answers": name, "option": option, **({"retrieval": "bm25"} if retrieves else {})}
        run = self.store.ensure_run(RunSpec(name, "NoR", dataset, config))
        queries = self.store.queries(dataset)
        right = set(right)
        for i in (range(len(queries)) if only is None else only):
            answer = queries[i].answers[0] if i in right else "no idea"
            self.store.record_result(run.run_id, QueryResult(queries[i].id, answer, (), {}, USAGE))
        return run.run_id


@pytest.fixture
def hopkit(db: str, capsys: pytest.CaptureFixture[str]) -> Hopkit:
    tool = Hopkit(db, capsys)
    tool.ok("ingest", "jsonl", str(SAMPLE), "--name", "qs", "--limit", "12")
    return tool


def metric_row(out: str, metric: str) -> list[str]:
    rows = [line.split() for line in out.splitlines() if line.startswith(metric + " ")]
    assert len(rows) == 1, out
    return rows[0]


def test_compare_prints_the_hand_computed_statistics(hopkit: Hopkit) -> None:
    good = hopkit.add_run("good", range(12), retrieves=True)
    bad = hopkit.add_run("bad", {0, 1})
    code, out, err = hopkit("compare", "good", bad[:6])
    assert code == 0, err
    assert out.startswith(f"A = good ({good}), B = bad ({bad}), dataset qs: 12 question(s) both attempted")
    # EM: A right on all 12, B on 2: 10 won, 0 lost, 2 tied; McNemar p = 2 / 2**10 = 0.00195
    em = metric_row(out, "EM")
    assert em[:5] == ["EM", "12", "100.0", "16.7", "+83.3"]
    assert em[-12:-4] == ["0.002", "McNemar", "exact", "10", "0", "2", "good", "higher"]
    # F1 is 1 or 0 here too: ten differences of +1, so the sign-flip p is 2 / 2**10 as well
    assert metric_row(out, "F1")[-12:-4] == ["0.002", "sign-flip", "permutation", "10", "0", "2", "good", "higher"]
    # bad does not retrieve: no recall to compare
    assert "Not compared: Para R@15, Title R@15, Ans R@15" in out
    assert "At 95%, good is higher than bad on EM (by 83.3 points, p = 0.002), F1 (by 83.3 points" in out
    assert "exact McNemar test" in out and "sign-flip permutation test" in out


def test_compare_says_when_a_difference_is_noise(hopkit: Hopkit) -> None:
    hopkit.add_run("six", range(6))
    hopkit.add_run("one", {0})
    code, out, err = hopkit("compare", "six", "one")
    assert code == 0, err
    # 5 won, 0 lost: p = 2 / 32 = 0.0625, not below 0.05
    assert metric_row(out, "EM")[-12:-4] == ["0.062", "McNemar", "exact", "5", "0", "7", "cannot", "tell"]
    assert "EM, F1, Cover-EM: no difference distinguishable from noise at 95%." in out


def test_compare_pairs_only_shared_questions(hopkit: Hopkit) -> None:
    hopkit.add_run("first", range(12), only=range(8))
    hopkit.add_run("second", (), only=range(4, 12))
    out = hopkit.ok("compare", "first", "second")
    assert "4 question(s) both attempted (failed ones score 0); left out: 4 attempted by A only, 4 by B only" in out
    assert metric_row(out, "EM")[:2] == ["EM", "4"]


def test_compare_refuses_runs_on_different_datasets(hopkit: Hopkit) -> None:
    hopkit.ok("ingest", "jsonl", str(SAMPLE), "--name", "other", "--limit", "4")
    a = hopkit.add_run("here", range(12))
    b = hopkit.add_run("there", range(4), dataset="other")
    code, out, err = hopkit("compare", "here", "there")
    assert code == 2 and out == ""
    assert err.startswith(f"hopkit: error: cannot compare run 'here' ({a}) and run 'there' ({b}): they ran "
                          "on different datasets ('qs' and 'other')")


def test_compare_refuses_runs_without_a_shared_question(hopkit: Hopkit) -> None:
    a = hopkit.add_run("early", range(12), only=range(6))
    b = hopkit.add_run("late", range(12), only=range(6, 12))
    code, _, err = hopkit("compare", "early", "late")
    assert code == 2
    assert f"cannot compare run 'early' ({a}) and run 'late' ({b}) on 'qs': the runs share no question" in err


def test_compare_refuses_one_run_twice_and_an_ambiguous_name(hopkit: Hopkit) -> None:
    a = hopkit.add_run("dup", range(12))
    b = hopkit.add_run("dup", (), option=1)
    code, _, err = hopkit("compare", a, a[:8])
    assert code == 2 and f"both name run 'dup' ({a}); name two different runs" in err
    code, _, err = hopkit("compare", "dup", b)
    assert code == 2 and f"'dup' names 2 runs: 'dup' ({a}) on qs, 'dup' ({b}) on qs; name one by its id" in err
    out = hopkit.ok("compare", a, b)
    # two runs sharing a name are labelled with their id prefixes
    assert out.startswith(f"A = dup ({a[:8]}) ({a}), B = dup ({b[:8]}) ({b})")


def test_compare_skips_stale_runs_with_the_reason(hopkit: Hopkit) -> None:
    old = hopkit.add_run("good", range(12))
    hopkit.add_run("bad", ())
    hopkit.ok("ingest", "jsonl", str(SAMPLE), "--name", "qs", "--limit", "12", "--seed", "1", "--replace")
    new = hopkit.add_run("good", range(12), option=2)  # the same name, on the new corpus
    code, out, err = hopkit("compare", "good", "bad")
    assert code == 2 and out == ""
    assert f"skipped: run 'good' ({old}) is stale" in err
    assert "skipped: run 'bad'" in err and "'bad' names no run that can be scored" in err
    hopkit.add_run("bad", (), option=3)
    code, out, err = hopkit("compare", "good", "bad")
    assert code == 0 and f"A = good ({new})" in out and f"({old}) is stale" in err


def test_unknown_runs_get_a_hint_where_runs_may_be(hopkit: Hopkit, tmp_path: Path) -> None:
    code, out, err = hopkit("runs")
    assert code == 0
    assert out.startswith(f"no runs stored yet; runs are looked up in sqlite:///{tmp_path / 'hopkit.db'}")
    assert "--db sqlite:///.hopkit-bench/hopkit.db" in out
    for command in (("compare", "nosuch", "other"), ("evaluate", "nosuch"), ("report", "nosuch")):
        code, _, err = hopkit(*command)
        assert code == 2 and "unknown run 'nosuch'" in err, command
        assert f"runs are looked up in sqlite:///{tmp_path / 'hopkit.db'}" in err and ".hopkit-bench" in err
    code, _, err = hopkit("evaluate", "--dataset", "qs")
    assert code == 2 and "no run on dataset 'qs' matches" in err and ".hopkit-bench" in err


def test_compare_includes_llm_accuracy_when_both_runs_are_judged(hopkit: Hopkit) -> None:
    good = hopkit.add_run("good", range(12))
    bad = hopkit.add_run("bad", {0, 1})
    order = [q.id for q in hopkit.store.queries("qs")]
    verdicts = VerdictStore(DBConnection.from_config(hopkit.db).get_session_factory())
    for run_id, accepted in ((good, range(12)), (bad, range(3))):  # the judge also accepts bad's third answer
        for result in hopkit.store.results(run_id):
            correct = order.index(result.query_id) in accepted
            verdicts.record(run_id, "judge-model", PROMPT_VERSION,
                            StoredVerdict(result.query_id, result.prediction, correct, "Yes" if correct else "No"))
    out = hopkit.ok("compare", "good", "bad")
    # 9 won, 0 lost, 3 tied: McNemar p = 2 / 2**9 = 0.0039
    row = metric_row(out, "LLM Acc")
    assert row[:6] == ["LLM", "Acc", "12", "100.0", "25.0", "+75.0"]
    assert row[-12:-4] == ["0.004", "McNemar", "exact", "9", "0", "3", "good", "higher"]
    assert "LLM Acc: judged by judge-model" in out
    assert "Not compared: Para R@15, Title R@15, Ans R@15 (" in out


def test_evaluate_shows_the_cost_split(hopkit: Hopkit) -> None:
    hopkit.add_run("good", range(12))
    out = hopkit.ok("evaluate", "--wide")
    header = out.splitlines()[0]
    assert header.split()[-9:] == ["Cached", "%", "s/q", "LLM", "s/q", "Retr", "s/q", "Other", "s/q"]
    # 200 of 400 prompt tokens cached; 2.0 s = 1.5 model + 0.25 retrieval + 0.25 other
    assert out.splitlines()[2].split()[-5:] == ["50", "2.00", "1.50", "0.250", "0.250"]


def test_report_gains_paired_comparisons(hopkit: Hopkit, tmp_path: Path) -> None:
    hopkit.add_run("good", range(12))
    hopkit.add_run("bad", {0, 1})
    hopkit.ok("report", "--out", str(tmp_path / "report"))
    markdown = (tmp_path / "report" / "comparison.md").read_text(encoding="utf-8")
    section = markdown.split("## Paired comparisons", 1)[1]
    assert "### qs" in section
    assert re.search(r"^\| good \| bad \| EM \| 12 \| 100\.0 \| 16\.7 \| \+83\.3 \| \[.*\] \| 0\.002 \| "
                     r"McNemar exact \| 10 \| 0 \| 2 \| good higher \| \[.*\] \| 0\.035 \| 12 \|$", section, re.M)
    # the anytime columns: two ties then ten straight wins, capital (1.5**10 + 0.5**10) / 2 = 28.8 >= 20 at n = 12
    assert "Anytime 95% CS" in section and "Decided at n" in section
    assert sorted(p.name for p in (tmp_path / "report").iterdir()) == sorted(
        ["comparison.md", "comparison.csv", "comparison.png", "time_split.png", "leaderboard.md", "index.html",
         "explorer.html", "html-report"])


def test_quickstart_report_gains_paired_comparisons(hopkit: Hopkit, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    runs = [hopkit.add_run("good", range(12)), hopkit.add_run("bad", {0, 1})]

    def stored_runs(session_factory: object, **_: object) -> list[RunSummary]:  # no model: the runs above
        return score_runs(hopkit.store, [hopkit.store.run(run_id) for run_id in runs])

    monkeypatch.setattr("hopkit.quickstart.run.run_quickstart", stored_runs)
    hopkit.ok("quickstart", "--out", str(tmp_path / "quick"))
    section = (tmp_path / "quick" / "comparison.md").read_text(encoding="utf-8").split("## Paired comparisons")[1]
    assert "| good | bad | EM | 12 |" in section


def test_evaluate_shows_the_columns_compared_first_and_fits_a_terminal(hopkit: Hopkit) -> None:
    """Issue 29 item 6: the 21-column, 289-character table wrapped in any terminal."""
    hopkit.add_run("good", range(12))
    out = hopkit.ok("evaluate")
    header = out.splitlines()[0]
    assert header.split() == ["Run", "Dataset", "n", "Failed", "EM", "F1", "Cover-EM", "s/q"]
    assert max(len(line) for line in out.splitlines()[:3]) <= 100
    assert "--wide, or the report's comparison.csv" in out


def test_compare_anytime_prints_the_sequence_beside_the_fixed_n_test(hopkit: Hopkit) -> None:
    hopkit.add_run("good", range(12))
    hopkit.add_run("bad", {0, 1})
    hopkit.add_run("six", range(6))
    out = hopkit.ok("compare", "good", "bad", "--anytime")
    anytime = out.split("Anytime-valid, in the dataset's stored question order:", 1)[1]
    em = metric_row(anytime, "EM")
    # the fixed-n test's p beside the sequence: two ties then ten straight wins, capital (1.5**10 + 0.5**10) / 2
    # = 28.83 at n = 12 (tests/evaluation/test_anytime.py): e-value 28.8, anytime p 1 / 28.83 = 0.035
    assert em[:6] == ["EM", "12", "+83.3", "0.002", "McNemar", "exact"]
    assert em[-3:] == ["28.8", "0.035", "12"]
    assert "EM: decided at n = 12 (good higher)" in anytime
    # five wins in six questions then ties: (1.5**5 + 0.5**5) / 2 = 3.8 < 20, the sequence still holds 0
    assert "EM: not decided at n = 12 (the sequence still holds 0)" in hopkit.ok("compare", "six", "bad", "--anytime")
    assert "Anytime-valid" not in hopkit.ok("compare", "good", "bad")


def test_compare_plan_reads_the_pilot_s_discordance(hopkit: Hopkit) -> None:
    hopkit.add_run("good", range(8))
    hopkit.add_run("bad", {0, 1, 2, 9})
    out = hopkit.ok("compare", "good", "bad", "--plan", "20")
    plan = out.split("Plan for a true difference of 20 points, from these runs as the pilot:", 1)[1]
    em = metric_row(plan, "EM")
    # 6 of 12 questions discordant: mean d^2 = 0.5; Connor's
    # n = (1.959964 * sqrt(0.5) + 0.841621 * sqrt(0.5 - 0.04))**2 / 0.04 = (1.385904 + 0.570814)**2 / 0.04 = 95.7,
    # so 96 questions at 80% power
    assert em[:4] == ["EM", "12", "0.500", "96"]
    assert int(em[4]) > 0 and em[-2:] == ["by", "384"]  # the simulation's cap: 4 x 96
    # 60 points is more than these runs ever differ per question on average (50): said, not planned
    wide = hopkit.ok("compare", "good", "bad", "--plan", "60")
    assert "a difference of 60.0 points cannot be planned from this pilot" in wide


@pytest.mark.parametrize("value", ["0", "100", "250"])
def test_compare_plan_refuses_a_difference_outside_0_to_100(hopkit: Hopkit, value: str) -> None:
    hopkit.add_run("good", range(8))
    hopkit.add_run("bad", {0})
    code, out, err = hopkit("compare", "good", "bad", "--plan", value)
    assert code == 2 and "--plan" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) <= 2  # argparse's usage line and one message, or one line
