"""The command line with hostile names and damaged stores (issue 28, items 2 and 6).

A run's or dataset's name may come from an imported file: printed raw, an escape sequence
in it rewrites the terminal; written raw into a CSV, a leading "=" runs as a formula. A
store holding a result for an unknown question (an old import let it in) must not stop
scoring for every run, and a command must remove such a run. The store is a real SQLite
file; the model is the scripted LLM config.
"""

from __future__ import annotations

import csv
import gzip
from pathlib import Path

import pytest

from hopkit.store.records import QueryResult, RunSpec
from hopkit.store.store import Store

from .running import hopkit

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "src" / "hopkit" / "quickstart" / "sample.jsonl"
NOR = ROOT / "src" / "hopkit" / "configs" / "pipelines" / "nor.yaml"




@pytest.fixture()
def scripted(tmp_path: Path) -> str:
    llm = tmp_path / "scripted.yaml"
    llm.write_text("_target_: hopkit.llm.fake.ScriptedLLM\nscript: [Velmora, Osric, Tarn]\n", encoding="utf-8")
    return str(llm)


@pytest.fixture()
def ingested(db: str, capsys: pytest.CaptureFixture[str]) -> str:
    code, _, err = hopkit(capsys, "--db", db, "ingest", "jsonl", str(SAMPLE), "--name", "toy", "--limit", "3")
    assert code == 0, err
    return db


def test_datasets_on_an_empty_store_says_so(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    Store.connect(db)  # a store with no dataset (a missing file is no store: tests/cli/test_cli_missing_store.py)
    code, out, _ = hopkit(capsys, "--db", db, "datasets")
    assert code == 0 and out.startswith("no datasets stored yet in sqlite:///") and "hopkit ingest" in out


def test_a_name_with_escape_sequences_prints_escaped_and_a_formula_name_stays_text_in_the_csv(
        ingested: str, scripted: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = Store.connect(ingested)  # such names come from an imported file: hopkit refuses them as new names
    for number, name in enumerate(("\x1b[2Jclear", "=HYPERLINK(\"http://x\")")):
        run_id = store.ensure_run(RunSpec(name, "nor", "toy", {"number": number})).run_id
        for query in store.queries("toy"):
            store.record_result(run_id, QueryResult(query.id, "Tarn"))
    code, out, _ = hopkit(capsys, "--db", ingested, "runs")
    assert "\x1b" not in out and "\\x1b[2Jclear" in out
    assert out.splitlines()[0].split()[:4] == ["id", "name", "method", "dataset"]
    code, out, err = hopkit(capsys, "--db", ingested, "report", "--out", str(tmp_path / "report"))
    assert code == 0 and "\x1b" not in out + err, err
    with (tmp_path / "report" / "comparison.csv").open(encoding="utf-8") as table:
        names = [row["name"] for row in csv.DictReader(table)]
    assert "'=HYPERLINK(\"http://x\")" in names and not any(name.startswith("=") for name in names)


@pytest.mark.parametrize("name", ["\x1b[2Jclear", "oner\u200b", " oner", "on\u202eer", "oner\xa0k2"])
@pytest.mark.parametrize("command", [["ingest", "jsonl", str(SAMPLE)], ["run", str(NOR)]])
def test_a_name_a_person_could_not_tell_from_another_is_refused(ingested: str, capsys: pytest.CaptureFixture[str],
                                                               command: list[str], name: str) -> None:
    """Issue 48: a new name with a control, an invisible or space-like character, or a space at either end."""
    code, _, err = hopkit(capsys, "--db", ingested, *command, "--name", name)
    assert code == 2 and err.startswith("hopkit: error: --name: ") and "\x1b" not in err and "\u202e" not in err, err
    assert "starts or ends with a space" in err or "print as nothing or as a space" in err


def test_a_name_in_a_config_file_is_checked_the_same_way(ingested: str, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "hidden.yaml"
    config.write_text(NOR.read_text(encoding="utf-8") + "name: \"nor\\u200b\"\n", encoding="utf-8")
    code, _, err = hopkit(capsys, "--db", ingested, "run", str(config))
    assert code == 2 and "field 'name'" in err and "\\u200b" in err, err


def test_a_dataset_name_that_looks_like_a_stored_one_is_warned_of(ingested: str,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = hopkit(capsys, "--db", ingested, "ingest", "jsonl", str(SAMPLE), "--name", "ＴＯＹ",
                          "--limit", "2")
    assert code == 0 and "looks like the stored dataset 'toy'" in err, err


@pytest.mark.parametrize("command", [["ingest", "jsonl", str(SAMPLE)], ["run", str(NOR)]])
def test_an_empty_name_is_refused_naming_the_option(ingested: str, capsys: pytest.CaptureFixture[str],
                                                   command: list[str]) -> None:
    code, _, err = hopkit(capsys, "--db", ingested, *command, "--name", "")
    assert code == 2 and err == ("hopkit: error: --name: a name must not be empty or blank; leave the option "
                                 "out for the default\n")


def test_a_result_for_an_unknown_question_is_left_out_of_scoring_and_its_run_can_be_deleted(
        ingested: str, scripted: str, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    """An orphan row made `evaluate` and `report` exit 2 for every run, and no command removed it."""
    code, _, err = hopkit(capsys, "--db", ingested, "run", str(NOR), "--llm", scripted, "--quiet")
    assert code == 0, err
    store = Store.connect(ingested)
    damaged = store.ensure_run(RunSpec("damaged", "nor", "toy", {"from": "an old import"})).run_id
    store.record_result(damaged, QueryResult(store.queries("toy")[0].id, "Velmora"))
    store.record_result(damaged, QueryResult("not-in-the-dataset", "Velmora", (999999,)))
    code, out, _ = hopkit(capsys, "--db", ingested, "runs")
    assert "damaged" in out and "1 done, 0 failed" in out
    code, out, err = hopkit(capsys, "--db", ingested, "evaluate")
    assert code == 0, err
    warned = caplog.text  # the CLI's log handler writes this to stderr
    assert "run damaged" in warned and "1 result(s) left out of scoring" in warned
    assert "'not-in-the-dataset'" in warned
    assert "damaged" in out and "nor" in out
    code, out, err = hopkit(capsys, "--db", ingested, "delete", "damaged")
    assert code == 0 and f"deleted run damaged ({damaged})" in out and "2 result(s)" in out, err
    assert [run.name for run in store.runs()] == ["nor"]


def test_a_cut_off_import_file_says_which_runs_it_imported_and_exits_1(
        ingested: str, scripted: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = hopkit(capsys, "--db", ingested, "run", str(NOR), "--llm", scripted, "--quiet")
    assert code == 0, err
    exported = tmp_path / "runs.jsonl.gz"
    assert hopkit(capsys, "--db", ingested, "export", "nor", "--out", str(exported))[0] == 0
    whole = gzip.decompress(exported.read_bytes()).decode("utf-8")
    cut = tmp_path / "cut.jsonl"
    cut.write_text(whole[: whole.rindex("\n", 0, len(whole) - 1) + 40], encoding="utf-8")  # in the last line
    target = f"sqlite:///{tmp_path / 'target.db'}"
    assert hopkit(capsys, "--db", target, "ingest", "jsonl", str(SAMPLE), "--name", "toy", "--limit", "3")[0] == 0
    code, out, err = hopkit(capsys, "--db", target, "import", str(cut))
    assert code == 1
    assert "2 result(s) added" in out
    assert f"{cut} stops after line 4 (cut off while written or copied)" in err and "of runs: 'nor' (" in err
