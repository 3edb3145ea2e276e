"""MuSiQue and IRCoT-processed loaders on small fixtures in the official layout."""

from __future__ import annotations

from pathlib import Path

import pytest

from hopkit.data.formats import load_ircot, load_musique
from hopkit.data.formats._common import Where
from hopkit.data.formats.ircot import answer_object_to_string

pytestmark = pytest.mark.unit

FIXTURES = Path(__file__).parent / "fixtures"


def test_musique_keeps_answer_then_aliases_and_supporting_flags() -> None:
    examples = load_musique(FIXTURES / "musique_small.jsonl")
    first = examples[0]
    assert first.id == "2hop__1_2"
    assert first.answers == ("Sella Bay", "Bay of Sella")
    assert [p.is_supporting for p in first.context] == [True, True, False]
    assert first.context[1].text == "The Ambrel flows into Sella Bay."


def test_musique_skips_unanswerable_rows_and_blank_lines() -> None:
    assert [e.id for e in load_musique(FIXTURES / "musique_small.jsonl")] == ["2hop__1_2", "2hop__3_4"]


def test_ircot_turns_spans_numbers_and_dates_into_answer_strings() -> None:
    examples = {e.id: e for e in load_ircot(FIXTURES / "ircot_small.jsonl")}
    assert examples["ir1"].answers == ("Richmond",)
    assert examples["ir2"].answers == ("3", "three")
    assert examples["ir3"].answers == ("4 May 1201",)
    assert examples["ir4"].answers == ("Oster, Wend",)


def test_ircot_reads_contexts_and_pinned_main_passage() -> None:
    examples = {e.id: e for e in load_ircot(FIXTURES / "ircot_small.jsonl")}
    first = examples["ir1"]
    assert [(p.title, p.is_supporting) for p in first.context] == [("Casino", True), ("Tabulam", False)]
    assert first.main_passage is None
    main = examples["ir3"].main_passage
    assert main is not None and main.title == "Ostmark"


def test_answer_object_with_only_year_gives_the_year() -> None:
    obj = {"number": "", "date": {"day": "", "month": "", "year": "1999"}, "spans": []}
    assert answer_object_to_string(obj, Where("f.jsonl", line=1)) == "1999"
