"""New names that print as nothing, or as a stored name, are refused before anything runs (issue 70, failure 5).

A Hangul filler, the braille blank, a variation selector or the combining grapheme joiner prints as nothing:
``toy`` and ``toy`` + U+3164 look the same in every table. ``café`` composed (NFC) and ``cafe`` + U+0301
(NFD) print identically: hopkit warned of that only after the run, and then showed two datasets and two runs
no one could tell apart. The store is a real SQLite file; the model is the scripted LLM config.
"""

from __future__ import annotations

import gzip
import json
import sqlite3
import unicodedata
from pathlib import Path

import pytest

from hopkit.errors import StoreError
from hopkit.store.records import QueryResult, RunSpec
from hopkit.store.store import Store
from hopkit.terminal import name_problem, printable

from .running import hopkit

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "src" / "hopkit" / "quickstart" / "sample.jsonl"
NOR = ROOT / "src" / "hopkit" / "configs" / "pipelines" / "nor.yaml"

COMPOSED = "r\u00e9ponse"  # réponse, as typed
DECOMPOSED = unicodedata.normalize("NFD", COMPOSED)  # the same, with the accent written apart

# Each class of code points that prints as nothing, first and last of a range where it is one.
BLANK = {
    "Hangul choseong filler": "\u115f", "Hangul jungseong filler": "\u1160", "Hangul filler": "\u3164",
    "halfwidth Hangul filler": "\uffa0", "braille pattern blank": "\u2800",
    "variation selector 1": "\ufe00", "variation selector 16": "\ufe0f",
    "variation selector 17": "\U000e0100", "variation selector 256": "\U000e01ef",
    "Mongolian free variation selector": "\u180b", "combining grapheme joiner": "\u034f",
    "Khmer inherent vowel": "\u17b4", "tag letter": "\U000e0041", "musical null notehead": "\U0001d159",
    "Khitan small script filler": "\U00016fe4", "shorthand format overlap": "\U0001bca0",
    "musical begin beam": "\U0001d173", "soft hyphen": "\u00ad", "Arabic letter mark": "\u061c",
}


@pytest.fixture()
def scripted(tmp_path: Path) -> str:
    llm = tmp_path / "scripted.yaml"
    llm.write_text("_target_: hopkit.llm.fake.ScriptedLLM\nscript: [" + ", ".join(["Velmora"] * 20) + "]\n",
                   encoding="utf-8")
    return str(llm)


@pytest.fixture()
def other_llm(tmp_path: Path) -> str:
    """Another model config: a run with it is a new run (a run is identified by its configuration, not its name)."""
    llm = tmp_path / "other.yaml"
    llm.write_text("_target_: hopkit.llm.fake.ScriptedLLM\nscript: [" + ", ".join(["Tarn"] * 20) + "]\n",
                   encoding="utf-8")
    return str(llm)


@pytest.fixture()
def ingested(db: str, capsys: pytest.CaptureFixture[str]) -> str:
    code, _, err = hopkit(capsys, "--db", db, "ingest", "jsonl", str(SAMPLE), "--name", "toy", "--limit", "3")
    assert code == 0, err
    return db


@pytest.mark.parametrize("char", BLANK.values(), ids=BLANK.keys())
def test_every_class_of_blank_code_points_is_refused_in_a_new_name(char: str) -> None:
    problem = name_problem(f"toy{char}")
    assert "print as nothing" in problem and char not in problem and printable(char) in problem, problem
    assert printable(f"a{char}b") == f"a{char.encode('unicode_escape').decode('ascii')}b"


@pytest.mark.parametrize("char", ["\u3164", "\u2800", "\ufe0f", "\U000e0100", "\u034f"])
@pytest.mark.parametrize("command", [["ingest", "jsonl", str(SAMPLE)], ["run", str(NOR)]])
def test_a_blank_name_is_refused_on_the_command_line(ingested: str, capsys: pytest.CaptureFixture[str],
                                                     command: list[str], char: str) -> None:
    code, _, err = hopkit(capsys, "--db", ingested, *command, "--name", f"toy{char}")
    assert code == 2 and err.startswith("hopkit: error: --name: ") and "print as nothing" in err, err
    assert char not in err and err.count("\n") == 1
    assert Store.connect(ingested).datasets() == ["toy"] and Store.connect(ingested).runs() == []


def test_the_decomposed_form_of_a_stored_run_name_is_refused_before_any_question_is_run(
        ingested: str, scripted: str, other_llm: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = hopkit(capsys, "--db", ingested, "run", str(NOR), "--llm", scripted, "--quiet", "--name",
                          COMPOSED)
    assert code == 0, err
    store = Store.connect(ingested)
    [stored] = store.runs()
    code, out, err = hopkit(capsys, "--db", ingested, "run", str(NOR), "--llm", other_llm, "--quiet", "--name",
                            DECOMPOSED)
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith("hopkit: error: --name: ") and "'r\\\\u0301" not in err and f"'{COMPOSED}'" in err
    assert "re\\\\u0301ponse" in err  # the new name, told apart from the stored one
    assert out == ""  # no first line: no question was asked
    assert [(run.run_id, run.name) for run in store.runs()] == [(stored.run_id, COMPOSED)]


def test_a_run_name_is_checked_in_the_store_too(ingested: str) -> None:
    """The same refusal for every way a run starts (sweeps, campaigns, Python): ``Store.ensure_run``."""
    store = Store.connect(ingested)
    store.ensure_run(RunSpec(COMPOSED, "nor", "toy", {"k": 1}))
    store.ensure_run(RunSpec(COMPOSED, "nor", "toy", {"k": 2}))  # the same name again is no clash
    with pytest.raises(StoreError, match="'r\u00e9ponse' written with other Unicode code points"):
        store.ensure_run(RunSpec(DECOMPOSED, "nor", "toy", {"k": 3}))
    assert {run.name for run in store.runs()} == {COMPOSED}


def test_the_decomposed_form_of_a_stored_dataset_name_is_refused(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert hopkit(capsys, "--db", db, "ingest", "jsonl", str(SAMPLE), "--name", COMPOSED, "--limit", "2")[0] == 0
    code, _, err = hopkit(capsys, "--db", db, "ingest", "jsonl", str(SAMPLE), "--name", DECOMPOSED, "--limit", "2")
    assert code == 2 and err.startswith("hopkit: error: --name: ") and f"'{COMPOSED}'" in err, err
    for replace in ([], ["--replace"]):  # not even as a replacement
        assert hopkit(capsys, "--db", db, "ingest", "jsonl", str(SAMPLE), "--name", DECOMPOSED, *replace)[0] == 2
    assert Store.connect(db).datasets() == [COMPOSED]


def test_compatibility_forms_are_refused_and_case_is_warned_of_before_the_run(
        ingested: str, scripted: str, other_llm: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Equal after NFKC (the micro sign and μ, full-width letters) prints alike: refused. Differing in case
    only prints apart: a warning, now before the run's first line rather than after its last."""
    def run(name: str, llm: str = other_llm) -> tuple[int, str, str]:
        return hopkit(capsys, "--db", ingested, "run", str(NOR), "--llm", llm, "--quiet", "--name", name)

    assert run("\u03bcnor", scripted)[0] == 0
    for alike in ("\u00b5nor", "\u03bc\uff4e\uff4f\uff52"):
        code, _, err = run(alike)
        assert code == 2 and "'\u03bcnor'" in err, err
    code, out, err = run("\u039cNOR")
    assert code == 0 and "looks like the stored run '\u03bcnor'" in err, err
    assert len(Store.connect(ingested).runs()) == 2


def test_an_import_does_not_bring_in_a_run_named_as_a_stored_one_written_otherwise(
        ingested: str, scripted: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert hopkit(capsys, "--db", ingested, "run", str(NOR), "--llm", scripted, "--quiet", "--name", COMPOSED)[0] == 0
    exported = tmp_path / "runs.jsonl.gz"
    assert hopkit(capsys, "--db", ingested, "export", COMPOSED, "--out", str(exported))[0] == 0
    lines = [json.loads(line) for line in gzip.decompress(exported.read_bytes()).decode("utf-8").splitlines()]
    renamed: dict[str, str] = {}
    for record in lines:  # the same run from another store, named in the decomposed form, another config
        if "run" in record:
            run = record["run"]
            run["name"], run["config"] = DECOMPOSED, {**run["config"], "from": "another store"}
            renamed[run["run_id"]] = run["run_id"] = RunSpec(DECOMPOSED, run["method"], "toy", run["config"]).run_id
        for kind in ("result", "verdict"):
            if kind in record:
                record[kind]["run_id"] = renamed[record[kind]["run_id"]]
    edited = tmp_path / "edited.jsonl"
    edited.write_text("".join(json.dumps(record) + "\n" for record in lines), encoding="utf-8")
    code, out, err = hopkit(capsys, "--db", ingested, "import", str(edited))
    assert "written with other Unicode code points" in err and "re\\\\u0301ponse" in err, (code, out, err)
    assert [run.name for run in Store.connect(ingested).runs()] == [COMPOSED]


def test_stored_names_written_apart_print_apart(ingested: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Two such names already in a store (an older hopkit let them in) print apart in `runs` and `evaluate`."""
    store = Store.connect(ingested)
    run_ids = [store.ensure_run(RunSpec(COMPOSED, "nor", "toy", {"n": number})).run_id for number in range(2)]
    for run_id in run_ids:
        for query in store.queries("toy"):
            store.record_result(run_id, QueryResult(query.id, "Tarn"))
    with sqlite3.connect(ingested.removeprefix("sqlite:///")) as older:  # as an older hopkit stored it
        older.execute("UPDATE runs SET name = ? WHERE id = ?", (DECOMPOSED, run_ids[1]))
    for command in ("runs", "evaluate"):
        code, out, err = hopkit(capsys, "--db", ingested, command)
        assert code == 0 and COMPOSED in out and "re\\u0301ponse" in out and DECOMPOSED not in out, (out, err)
