"""``hopkit sweep``: a grid of configs × datasets into one store, checked first, resumable."""

from __future__ import annotations

from pathlib import Path

import pytest

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
