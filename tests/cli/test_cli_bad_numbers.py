"""Bad numbers and a bad HOPKIT_HOME on the command line (issue 70, failure 9): one line naming the option or the
variable, exit code 2, no traceback.

Before the fix ``hopkit run nor --limit 100000000000000000000`` ended in an ``OverflowError`` from SQLite, and
``HOPKIT_HOME`` naming a file in a ``NotADirectoryError`` traceback from ``hopkit index``. Every integer option is
now read by one parser (:func:`hopkit.cli.numbers.integer`), bounded by what the store holds (SQLite's 64-bit
INTEGER). The store is a real SQLite file, the model the scripted LLM config.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from hopkit.cli import main, parser
from hopkit.cli.numbers import STORE_INTEGER_MAX

from .running import hopkit

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
TOO_BIG = "100000000000000000000"


@pytest.fixture()
def toy(db: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> tuple[str, str]:
    """A store holding the sample's first three questions, and a scripted LLM config."""
    assert hopkit(capsys, "--db", db, "ingest", "sample", "--limit", "3")[0] == 0
    llm = tmp_path / "scripted.yaml"
    llm.write_text("_target_: hopkit.llm.fake.ScriptedLLM\nscript: [Velmora, Osric, Tarn]\n", encoding="utf-8")
    return db, str(llm)


def number_options(kind: str) -> list[tuple[str, str]]:
    """(subcommand, option) for every option of ``hopkit`` read by ``kind`` ("integer" or "number")."""
    subcommands = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    return [(name, action.option_strings[-1]) for name, sub in subcommands.choices.items()
            for action in sub._actions if getattr(action.type, "__name__", "") == kind]


def parse(subcommand: str, option: str, value: str) -> None:
    """Parse ``hopkit SUBCOMMAND [its positional argument] OPTION VALUE``."""
    parser().parse_args([subcommand, *POSITIONAL.get(subcommand, []), f"{option}={value}"])


POSITIONAL = {"run": ["nor"], "calibrate": ["migres"], "sweep": ["nor"]}


def test_every_number_option_is_read_by_the_one_parser() -> None:
    options = number_options("integer")
    assert ("run", "--limit") in options and ("ingest", "--seed") in options and ("index", "--workers") in options
    assert ("run", "--question-timeout") in number_options("number")
    subcommands = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    plain = [(name, action.option_strings) for name, sub in subcommands.choices.items() for action in sub._actions
             if action.type in (int, float)]
    assert plain == [], f"options read with int() or float(), unbounded: {plain}"
    # the campaign's tools build their parsers inside main(): read their source
    lines = [f"{path.name}: {line.strip()}" for folder in ("cli", "campaign")
             for path in sorted((ROOT / "src" / "hopkit" / folder).glob("*.py"))
             for line in path.read_text(encoding="utf-8").splitlines() if re.search(r"type=(int|float)\b", line)]
    assert lines == [], lines


@pytest.mark.parametrize(("subcommand", "option"), number_options("integer"))
def test_an_integer_too_big_for_the_store_is_one_line_naming_the_option(
        subcommand: str, option: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        parse(subcommand, option, TOO_BIG)
    assert stopped.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith(f"hopkit {subcommand}: error: argument {option}: expected an integer ") \
        and f"{STORE_INTEGER_MAX}, got '{TOO_BIG}'" in last, last


@pytest.mark.parametrize(("subcommand", "option"), number_options("number"))
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e999"])
def test_a_number_option_takes_only_finite_numbers(subcommand: str, option: str, value: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        parse(subcommand, option, value)
    assert stopped.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last == f"hopkit {subcommand}: error: argument {option}: expected a finite number, got '{value}'", last


@pytest.mark.parametrize("value", [TOO_BIG, "-" + TOO_BIG, "1" * 5000, "nan", "2.5", "0x10"])
def test_run_limit_refuses_what_is_not_a_storable_count(value: str, toy: tuple[str, str],
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    db, llm = toy
    with pytest.raises(SystemExit) as stopped:
        main(["--db", db, "run", "nor", "--llm", llm, "--quiet", "--limit", value])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"argument --limit: expected an integer from 0 to {STORE_INTEGER_MAX}" in err.splitlines()[-1]


def test_the_largest_count_the_store_holds_is_taken(toy: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    db, llm = toy
    code, out, err = hopkit(capsys, "--db", db, "run", "nor", "--llm", llm, "--quiet", "--limit",
                            str(STORE_INTEGER_MAX))
    assert code == 0, err
    assert "3 questions, 0 already done, 3 answered now, 0 failed" in out


def test_the_campaigns_numbers_are_bounded_too(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["campaign", "run", "--limit", TOO_BIG])
    assert stopped.value.code == 2
    assert "argument --limit: expected an integer from 1 to" in capsys.readouterr().err


@pytest.mark.parametrize("below", ["", "sub/folder"])
def test_hopkit_home_naming_a_file_is_one_line_naming_the_variable(
        below: str, toy: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    db, _ = toy
    (tmp_path / "a-file").write_text("not a folder\n", encoding="utf-8")
    home = tmp_path / "a-file" / below if below else tmp_path / "a-file"
    monkeypatch.setenv("HOPKIT_HOME", str(home))
    for command in (["--db", db, "index", "--dataset", "sample"], ["runs"], ["--db", db, "report"]):
        code, _, err = hopkit(capsys, *command)
        assert code == 2, (command, err)
        assert err.startswith(f"hopkit: error: HOPKIT_HOME: {home} is not a folder") and len(err.splitlines()) == 1, \
            (command, err)
    assert (tmp_path / "a-file").read_text(encoding="utf-8") == "not a folder\n"
