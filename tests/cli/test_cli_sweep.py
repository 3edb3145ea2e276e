"""``hopkit sweep``: a grid of configs × datasets into one store, checked first, resumable."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest

from hopkit.campaign.qa_section import Cell
from hopkit.campaign.qa_until_decided import pair_tracks, section_limits
from hopkit.errors import ConfigError
from hopkit.store.store import Store

from .running import hopkit

pytestmark = pytest.mark.unit


def scripted_llm(folder: Path) -> str:
    path = folder / "says-velmora.yaml"
    path.write_text('_target_: hopkit.llm.fake.ScriptedLLM\nscript: ["Velmora", "Velmora", "Velmora"]\n',
                    encoding="utf-8")
    return str(path)


@pytest.fixture()
def two_datasets(db: str, capsys: pytest.CaptureFixture[str]) -> str:
    for name in ("first", "second"):
        assert hopkit(capsys, "--db", db, "ingest", "sample", "--limit", "2", "--seed", str(len(name)),
                      "--name", name)[0] == 0
    return db


def test_a_sweep_runs_every_config_on_every_dataset_and_resumes(two_datasets: str, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    db, llm = two_datasets, scripted_llm(tmp_path)
    command = ("--db", db, "sweep", "nor", "oner", "--datasets", "first", "second", "--llm", llm, "--quiet")
    code, out, _ = hopkit(capsys, *command)
    assert code == 0 and "2 config(s) × 2 dataset(s) = 4 run(s)" in out
    rows = [line.split() for line in out.splitlines() if line.startswith(("nor ", "oner "))]
    assert [(r[0], r[1], r[3], r[4], r[5], r[6]) for r in rows] == [
        ("nor", "first", "2", "2", "0", "ok"), ("nor", "second", "2", "2", "0", "ok"),
        ("oner", "first", "2", "2", "0", "ok"), ("oner", "second", "2", "2", "0", "ok")]
    runs = Store.connect(db).runs()
    assert len(runs) == 4 and {(r.method, r.dataset) for r in runs} == {
        (m, d) for m in ("nor", "oner") for d in ("first", "second")}

    code, again, _ = hopkit(capsys, *command)  # resumes: the same four runs, nothing asked again
    assert code == 0 and len(Store.connect(db).runs()) == 4
    resumed = [line.split() for line in again.splitlines() if line.startswith(("nor ", "oner "))]
    assert [(r[2], r[3], r[4]) for r in resumed] == [(r[2], "2", "0") for r in rows]


def test_a_wrong_option_in_any_config_stops_the_sweep_before_a_question_is_asked(
        two_datasets: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text("method: oner\nname: wrong\nk: 0\n", encoding="utf-8")
    code, out, err = hopkit(capsys, "--db", two_datasets, "sweep", "nor", str(wrong), "--datasets", "first",
                            "--llm", scripted_llm(tmp_path), "--quiet")
    assert code == 2 and f"{wrong}: field 'k': expected an integer >= 1, got 0" in err
    assert Store.connect(two_datasets).runs() == []


def test_a_dataset_not_stored_is_named_before_anything_runs(two_datasets: str, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = hopkit(capsys, "--db", two_datasets, "sweep", "nor", "--datasets", "first", "third",
                          "--llm", scripted_llm(tmp_path), "--quiet")
    assert code == 2 and "third" in err and Store.connect(two_datasets).runs() == []


def test_a_paper_sweep_runs_each_declared_experiment_where_its_paper_runs_it(
        db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("hotpotqa", "strategyqa"):  # the experiments' settings are chosen by these names
        assert hopkit(capsys, "--db", db, "ingest", "sample", "--limit", "2", "--name", name)[0] == 0
    script = tmp_path / "answers.yaml"
    script.write_text('_target_: hopkit.llm.fake.ScriptedLLM\nscript: ['
                      + ", ".join(['" Found it."', '" Finish[Velmora]"'] * 2  # ReAct: a thought, then an action
                                  + ['"So the final answer is: Velmora."'] * 4) + "]\n", encoding="utf-8")
    code, out, err = hopkit(capsys, "--db", db, "sweep", "react", "self-ask", "--paper", "--datasets", "hotpotqa",
                            "strategyqa", "--llm", str(script), "--quiet")
    assert code == 0, out + err
    assert "not run: react on strategyqa: Yao et al. ran ReAct on HotpotQA and FEVER" in out
    assert "2 config(s) × 2 dataset(s) = 3 run(s)" in out
    runs = {(run.name, run.dataset): run.finished for run in Store.connect(db).runs()}
    assert runs == {("react", "hotpotqa"): 2, ("self-ask", "hotpotqa"): 2, ("self-ask", "strategyqa"): 2}


def _answering(folder: Path, name: str, answer: str) -> str:
    """A NoR config whose model answers ``answer`` to every question."""
    llm = folder / f"{name}-llm.yaml"
    llm.write_text("_target_: hopkit.llm.fake.ScriptedLLM\nscript: [" + ", ".join([f'"{answer}"'] * 100) + "]\n",
                   encoding="utf-8")
    config = folder / f"{name}.yaml"
    config.write_text(f"method: nor\nname: {name}\nllm: {llm}\n", encoding="utf-8")
    return str(config)


@pytest.fixture()
def velmora(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """40 questions whose gold answer is "Velmora", in a real SQLite store."""
    sample = Path(__file__).resolve().parents[2] / "src" / "hopkit" / "quickstart" / "sample.jsonl"
    records = [json.loads(line) for line in sample.read_text(encoding="utf-8").splitlines() if line.strip()]
    path = tmp_path / "velmora.jsonl"
    path.write_text("".join(json.dumps({**records[i % len(records)], "id": f"v{i:02d}", "answers": ["Velmora"]}) + "\n"
                            for i in range(40)), encoding="utf-8")
    assert hopkit(capsys, "--db", db, "ingest", "jsonl", str(path), "--name", "velmora")[0] == 0
    return db


def until_decided_rows(out: str) -> dict[str, list[str]]:
    lines = out.split("until decided on em:", 1)[1].splitlines()
    return {line.split()[0]: re.split(r"\s{2,}", line.strip()) for line in lines[2:] if ":" in line.split()[0]}


def test_until_decided_grows_each_pair_by_batches_and_stops_it_when_its_sequence_excludes_0(
        velmora: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good, bad, same = (_answering(tmp_path, name, answer)
                       for name, answer in (("good", "Velmora"), ("bad", "no idea"), ("same", "Velmora")))
    command = ("--db", velmora, "sweep", good, bad, same, "--datasets", "velmora", "--quiet",
               "--until-decided", f"{good}:{bad}", f"{good}:{same}", "--batch", "5", "--budget", "200")
    code, out, err = hopkit(capsys, *command)
    assert code == 0, err
    rows = until_decided_rows(out)
    # ten straight wins: the capital (1.5**10 + 0.5**10) / 2 = 28.8 first reaches 20 at n = 10 (test_anytime.py)
    assert rows[f"{good}:{bad}"][3:4] + rows[f"{good}:{bad}"][-1:] == ["10", f"decided at n = 10 ({good} higher)"]
    # two runs that always agree never decide: every question asked
    assert rows[f"{good}:{same}"][3:4] + rows[f"{good}:{same}"][-1:] == ["40", "all 40 questions asked"]
    assert rows[f"{good}:{bad}"][4:6] == ["100.0", "0.0"]  # EM of each side on the 10 questions
    store = Store.connect(velmora)
    answers = {run.name: len(store.results(run.run_id)) for run in store.runs()}
    assert answers == {"good": 40, "bad": 10, "same": 40}  # bad was not asked past its decision
    assert "90 of 200 answers stored by the pairs' runs" in out
    recorded = json.loads(next((tmp_path / "home" / "until-decided").glob("*.json")).read_text(encoding="utf-8"))
    assert [(p["a"], p["n"], p["decided_at"]) for p in recorded["pairs"]] == [(good, 10, 10), (good, 40, None)]


def test_until_decided_stops_at_the_budget_and_resumes_from_the_store(
        velmora: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good, bad = _answering(tmp_path, "good", "Velmora"), _answering(tmp_path, "bad", "no idea")
    command = ("--db", velmora, "sweep", good, bad, "--datasets", "velmora", "--quiet",
               "--until-decided", f"{good}:{bad}", "--batch", "5", "--budget")
    code, out, err = hopkit(capsys, *command, "12")
    assert code == 0, err
    assert until_decided_rows(out)[f"{good}:{bad}"][-1] == "budget spent (10 of 12 answers; the next batch needs 10)"
    code, out, err = hopkit(capsys, *command, "100")  # a larger budget: the next batch, not the first again
    assert code == 0, err
    assert "questions 6-10" in out and "questions 1-5" not in out
    assert until_decided_rows(out)[f"{good}:{bad}"][-1] == f"decided at n = 10 ({good} higher)"
    assert sorted(len(Store.connect(velmora).results(run.run_id)) for run in Store.connect(velmora).runs()) == [10, 10]


def test_until_decided_refuses_a_pair_that_is_not_two_of_the_configs(
        velmora: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = hopkit(capsys, "--db", velmora, "sweep", "nor", "oner", "--datasets", "velmora",
                          "--until-decided", "nor:ircot", "--budget", "10")
    assert code == 2 and "'ircot' in 'nor:ircot' is not one of the sweep's configs" in err
    assert Store.connect(velmora).runs() == []


def campaign_args(**changes: object) -> argparse.Namespace:
    """``hopkit campaign run``'s options as section_limits reads them: good against bad and against same."""
    return argparse.Namespace(**{"until_decided": ["good:bad", "good:same"], "methods": ["good", "bad", "same"],
                                 "datasets": ["velmora"], "metric": "em", "budget": 200, "batch": 5,
                                 "resolution": None, "limit": 40, **changes})


def test_a_campaign_section_reads_its_stops_again_from_the_stored_runs_asking_nothing(
        velmora: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    configs = [_answering(tmp_path, name, answer)
               for name, answer in (("good", "Velmora"), ("bad", "no idea"), ("same", "Velmora"))]
    assert hopkit(capsys, "--db", velmora, "sweep", *configs, "--datasets", "velmora", "--quiet", "--until-decided",
                  f"{configs[0]}:{configs[1]}", f"{configs[0]}:{configs[2]}", "--batch", "5", "--budget", "200")[0] == 0
    store = Store.connect(velmora)
    cells = [Cell(run.name, run.dataset, run.run_id) for run in store.runs()]
    answered = {run.run_id: len(store.results(run.run_id)) for run in store.runs()}

    limits, (opening,) = section_limits(store, campaign_args(), cells, None)
    assert limits == {"velmora": 10}  # the questions both pairs share: good:bad stopped at 10
    rows = [line.split(" | ") for line in opening.splitlines() if line.startswith("| good:")]
    assert [(row[0], row[3], row[-1]) for row in rows] == [
        ("| good:bad", "10", "decided at n = 10 (good higher) |"), ("| good:same", "40", "all 40 questions asked |")]
    assert "the pairs' runs hold 90" in opening
    assert {run.run_id: len(store.results(run.run_id)) for run in store.runs()} == answered  # nothing asked

    _, (capped,) = section_limits(store, campaign_args(limit=20), cells, None)
    assert "| good:same | velmora | em | 20 |" in capped and "all 20 questions asked" in capped


def test_a_campaign_refuses_a_variant_in_no_pair_before_anything_runs() -> None:
    with pytest.raises(ConfigError, match="other of --methods is in no pair"):
        pair_tracks(campaign_args(methods=["good", "bad", "same", "other"]), [])
    with pytest.raises(ConfigError, match="'worse' in 'good:worse' is not one of the --methods variants"):
        pair_tracks(campaign_args(until_decided=["good:worse"]), [])
