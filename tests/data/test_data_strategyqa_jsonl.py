"""StrategyQA and the generic JSONL loader on small fixtures."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from hopkit.data.formats import load_jsonl, load_strategyqa
from hopkit.errors import DataError

pytestmark = pytest.mark.unit

FIXTURES = Path(__file__).parent / "fixtures"
SQA = FIXTURES / "strategyqa"


def test_strategyqa_yes_no_answers_and_cited_paragraphs_in_citation_order() -> None:
    first, second = load_strategyqa(SQA / "strategyqa_small.json")
    assert (first.answers, first.answer_type) == (("no",), "yes_no")
    assert second.answers == ("yes",)
    assert [p.title for p in first.context] == ["Ostmark", "Ostburg"]  # cited twice, kept once
    assert all(p.is_supporting for p in first.context)
    assert second.context[0].text == "Port Sella is a harbour city on Sella Bay."


def test_strategyqa_reads_the_official_paragraphs_json_object(tmp_path: Path) -> None:
    shutil.copy(SQA / "strategyqa_small.json", tmp_path / "strategyqa_train.json")
    table = {}
    for line in (SQA / "strategyqa_paragraphs_small.jsonl").read_text().splitlines():
        row = json.loads(line)
        table[f"{row['title']}-{row['para_index']}"] = {
            "title": row["title"], "section": row["section"], "headers": row["headers"],
            "para_index": row["para_index"], "content": row["contents"]}
    (tmp_path / "strategyqa_train_paragraphs.json").write_text(json.dumps(table))
    first = load_strategyqa(tmp_path / "strategyqa_train.json")[0]
    assert [p.text for p in first.context] == ["Ostmark is a landlocked country.",
                                               "Ostburg is the capital of Ostmark, far from any coast."]


def test_strategyqa_without_paragraphs_file_names_what_to_pass(tmp_path: Path) -> None:
    shutil.copy(SQA / "strategyqa_small.json", tmp_path / "q.json")
    with pytest.raises(DataError, match="paragraphs_path"):
        load_strategyqa(tmp_path / "q.json")


def test_strategyqa_cited_paragraph_missing_names_question_and_key(tmp_path: Path) -> None:
    lines = (SQA / "strategyqa_paragraphs_small.jsonl").read_text().splitlines()
    (tmp_path / "p.jsonl").write_text("\n".join(line for line in lines if "Ostburg" not in line))
    with pytest.raises(DataError) as info:
        load_strategyqa(SQA / "strategyqa_small.json", paragraphs_path=tmp_path / "p.jsonl")
    assert "Ostburg-2" in str(info.value) and "sq1" in str(info.value)


def test_jsonl_reads_answers_paragraphs_main_passage_and_types() -> None:
    q1, q2, q3 = load_jsonl(FIXTURES / "jsonl_small.jsonl")
    assert q1.answers == ("Ambrel", "Ambrel River")
    assert [p.is_supporting for p in q1.context] == [True, False]
    assert (q1.answer_type, q2.answer_type, q3.answer_type) == ("span", "yes_no", "span")
    assert q3.main_passage is not None and q3.main_passage.title == "Wendel"
    assert q3.context == ()


def test_jsonl_repeated_id_is_an_error(tmp_path: Path) -> None:
    line = json.dumps({"id": "a", "question": "Q?", "answers": ["x"], "paragraphs": []})
    (tmp_path / "d.jsonl").write_text(line + "\n" + line + "\n")
    with pytest.raises(DataError, match=r"d\.jsonl:2.*already used on line 1"):
        load_jsonl(tmp_path / "d.jsonl")


def test_the_documented_jsonl_example_loads(tmp_path: Path) -> None:
    doc = (Path(__file__).parents[2] / "docs" / "data-formats.md").read_text(encoding="utf-8")
    section = doc.split("## The generic JSONL format", 1)[1]
    block = section.split("```json", 1)[1].split("```", 1)[0]
    (tmp_path / "doc.jsonl").write_text(json.dumps(json.loads(block)) + "\n")
    (example,) = load_jsonl(tmp_path / "doc.jsonl")
    assert example.answers == ("Ambrel", "Ambrel River")
    assert example.main_passage is not None and example.main_passage.title == "Veloria"
    assert [p.is_supporting for p in example.context] == [True, False]
