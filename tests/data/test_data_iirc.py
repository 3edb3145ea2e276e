"""IIRC loader on a small fixture in the official layout (dev.json + context_articles.json)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hopkit.data.formats import load_iirc
from hopkit.data.formats.iirc_articles import html_to_text, split_paragraphs

pytestmark = pytest.mark.unit

FIXTURES = Path(__file__).parent / "fixtures" / "iirc"


def test_iirc_drops_unanswerable_questions() -> None:
    assert [e.id for e in load_iirc(FIXTURES / "dev.json")] == ["q_1", "q_2", "q_4", "q_5"]


def test_iirc_answers_by_type() -> None:
    examples = {e.id: e for e in load_iirc(FIXTURES / "dev.json")}
    assert examples["q_1"].answers == ("Veloria",)
    assert (examples["q_2"].answers, examples["q_2"].answer_type) == (("yes",), "yes_no")
    assert examples["q_4"].answers == ("700", "700 years")
    assert examples["q_5"].answers == ("Oster, Wend",)


def test_iirc_keeps_the_main_passage_with_the_question() -> None:
    first = load_iirc(FIXTURES / "dev.json")[0]
    assert first.main_passage is not None
    assert first.main_passage.title == "Thomas Wend (painter)"
    assert first.main_passage.text.startswith("Wend was born in Ostburg.")
    assert all(p.title != "Thomas Wend (painter)" for p in first.context)


def test_iirc_with_articles_maps_snippets_to_their_page_paragraph() -> None:
    examples = {e.id: e for e in load_iirc(FIXTURES / "dev.json")}
    gold = [p for p in examples["q_4"].context if p.is_supporting]
    assert [(p.title, p.text) for p in gold] == [
        ("Ostburg", "The city was founded in 1201 by Otto Brandt, a merchant from the western coast.")]
    # the page title is spelled as the main passage links it, whatever case the snippet used
    assert [p.title for p in examples["q_2"].context if p.is_supporting] == ["Ostburg"]


def test_iirc_with_articles_adds_linked_pages_as_distractors() -> None:
    first = load_iirc(FIXTURES / "dev.json")[0]
    titles = {p.title for p in first.context if not p.is_supporting}
    assert titles == {"Ostburg", "University of Sella", "Port Sella"}
    assert len(first.context) == 6  # 3 + 2 + 1 page paragraphs, the gold one counted once


def test_iirc_without_articles_uses_the_snippets_as_gold(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "dev.json", tmp_path / "dev.json")
    first = load_iirc(tmp_path / "dev.json")[0]
    assert [(p.title, p.text, p.is_supporting) for p in first.context] == [
        ("University of Sella", "The University of Sella is a public research university in Veloria", True)]


def test_iirc_linked_pages_can_be_turned_off() -> None:
    first = load_iirc(FIXTURES / "dev.json", linked_pages=False)[0]
    assert [p.is_supporting for p in first.context] == [True]


def test_article_html_is_split_into_long_lines_with_entities_decoded() -> None:
    page = '<p>One two three four five six seven eight nine ten eleven &amp; more.</p>\n<p>Too short.</p>'
    assert split_paragraphs(page) == ["One two three four five six seven eight nine ten eleven & more."]
    assert html_to_text('<a href="x">Link</a> text') == "Link text"
