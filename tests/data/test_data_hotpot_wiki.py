"""HotpotQA and 2WikiMultihopQA loaders on small fixtures in the official layout."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from hopkit.data.formats import load_2wikimultihopqa, load_hotpotqa
from hopkit.data.formats._common import join_sentences
from hopkit.errors import DataError

pytestmark = pytest.mark.unit

FIXTURES = Path(__file__).parent / "fixtures"


def test_hotpotqa_reads_questions_answers_and_context_in_order() -> None:
    examples = load_hotpotqa(FIXTURES / "hotpot_small.json")
    assert [e.id for e in examples] == ["hp1", "hp2", "hp3"]
    first = examples[0]
    assert first.question == "Which river flows through the capital of Veloria?"
    assert first.answers == ("Ambrel",)
    assert [p.title for p in first.context] == ["Veloria", "Port Sella", "Grand Canal"]
    assert first.main_passage is None


def test_hotpotqa_flags_paragraphs_named_in_supporting_facts() -> None:
    first = load_hotpotqa(FIXTURES / "hotpot_small.json")[0]
    assert [p.is_supporting for p in first.context] == [True, True, False]


def test_hotpotqa_joins_sentences_with_their_own_leading_spaces() -> None:
    first = load_hotpotqa(FIXTURES / "hotpot_small.json")[0]
    assert first.context[0].text == "Veloria is an island nation. Its capital is Port Sella."


def test_hotpotqa_marks_yes_no_answers() -> None:
    types = [e.answer_type for e in load_hotpotqa(FIXTURES / "hotpot_small.json")]
    assert types == ["span", "yes_no", "yes_no"]


def test_join_sentences_adds_a_space_only_where_none_is() -> None:
    assert join_sentences(["A b.", " C d."]) == "A b. C d."
    assert join_sentences(["A b.", "C d."]) == "A b. C d."
    assert join_sentences([]) == ""


def test_2wiki_joins_sentences_without_leading_spaces() -> None:
    first = load_2wikimultihopqa(FIXTURES / "two_wiki" / "dev.json")[0]
    assert first.context[0].text == "Silent Harbour is a 1961 film. It was directed by Ana Brel."
    assert [p.is_supporting for p in first.context] == [True, True, False]


def test_2wiki_adds_entity_aliases_found_next_to_the_file() -> None:
    examples = load_2wikimultihopqa(FIXTURES / "two_wiki" / "dev.json")
    assert examples[0].answers == ("Lisbon", "Lisboa", "Lisboner")
    assert examples[1].answers == ("yes",)
    assert examples[1].answer_type == "yes_no"


def test_2wiki_without_aliases_file_keeps_only_the_answer(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "two_wiki" / "dev.json", tmp_path / "dev.json")
    assert load_2wikimultihopqa(tmp_path / "dev.json")[0].answers == ("Lisbon",)


def test_2wiki_explicit_aliases_path_that_is_missing_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="aliases file not found"):
        load_2wikimultihopqa(FIXTURES / "two_wiki" / "dev.json", aliases_path=tmp_path / "nope.json")


def test_hotpotqa_supporting_title_missing_from_context_is_an_error(tmp_path: Path) -> None:
    rows = json.loads((FIXTURES / "hotpot_small.json").read_text())
    rows[2]["supporting_facts"].append(["Atlantis", 0])
    path = tmp_path / "hp.json"
    path.write_text(json.dumps(rows))
    with pytest.raises(DataError) as info:
        load_hotpotqa(path)
    message = str(info.value)
    assert "Atlantis" in message and "hp3" in message and "supporting_facts" in message
