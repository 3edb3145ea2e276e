"""Every loader turns bad input into one DataError naming file, line/record and field."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hopkit.data.formats import (
    load_2wikimultihopqa,
    load_hotpotqa,
    load_iirc,
    load_ircot,
    load_jsonl,
    load_musique,
    load_strategyqa,
)
from hopkit.errors import DataError

pytestmark = pytest.mark.unit

FIXTURES = Path(__file__).parent / "fixtures"


def _hotpot(**changes: Any) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads((FIXTURES / "hotpot_small.json").read_text())
    rows[1].update(changes)
    return rows


def _musique_line(**changes: Any) -> str:
    row = json.loads((FIXTURES / "musique_small.jsonl").read_text().splitlines()[0])
    row.update(changes)
    return json.dumps(row)


def _iirc(question_changes: dict[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads((FIXTURES / "iirc" / "dev.json").read_text())
    rows[0]["questions"][0].update(question_changes)
    return rows


def _sqa(**changes: Any) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads((FIXTURES / "strategyqa" / "strategyqa_small.json").read_text())
    rows[1].update(changes)
    return rows


GOOD_JSONL = {"id": "a", "question": "Q?", "answers": ["x"], "paragraphs": [{"title": "T", "text": "t"}]}
MUSIQUE_PARA = {"idx": 0, "title": "T", "paragraph_text": "text"}

# (id, loader, file name, file content, substrings the message must contain)
CASES: list[tuple[str, Callable[..., Any], str, str, tuple[str, ...]]] = [
    ("hotpot-malformed", load_hotpotqa, "h.json", '[{"_id": "x",\n "question": ', ("h.json:2", "malformed JSON")),
    ("hotpot-not-list", load_hotpotqa, "h.json", '{"_id": "x"}', ("h.json", "JSON list")),
    ("hotpot-missing-question", load_hotpotqa, "h.json",
     json.dumps([{k: v for k, v in r.items() if not (r["_id"] == "hp2" and k == "question")}
                 for r in _hotpot()]), ("record #1 (id 'hp2')", "field 'question'", "missing")),
    ("hotpot-empty-question", load_hotpotqa, "h.json", json.dumps(_hotpot(question="   ")),
     ("hp2", "field 'question'", "must not be empty")),
    ("hotpot-context-wrong-type", load_hotpotqa, "h.json", json.dumps(_hotpot(context="Veloria")),
     ("hp2", "field 'context'", "expected a list")),
    ("hotpot-bad-paragraph", load_hotpotqa, "h.json", json.dumps(_hotpot(context=[["Veloria", "text"]])),
     ("hp2", "context[0][1]", "sentence")),
    ("hotpot-bad-fact", load_hotpotqa, "h.json", json.dumps(_hotpot(supporting_facts=["Veloria"])),
     ("hp2", "supporting_facts[0]",)),
    ("2wiki-answer-number-list", load_2wikimultihopqa, "d.json", json.dumps(_hotpot(answer=["x"])),
     ("d.json", "hp2", "field 'answer'", "expected a string")),
    ("musique-malformed-line", load_musique, "m.jsonl", _musique_line() + "\n{oops\n", ("m.jsonl:2", "malformed JSON")),
    ("musique-missing-flag", load_musique, "m.jsonl", _musique_line(paragraphs=[MUSIQUE_PARA]),
     ("m.jsonl:1", "2hop__1_2", "paragraphs[0].is_supporting", "missing")),
    ("musique-flag-wrong-type", load_musique, "m.jsonl",
     _musique_line(paragraphs=[{**MUSIQUE_PARA, "is_supporting": "yes"}]),
     ("paragraphs[0].is_supporting", "true or false")),
    ("musique-not-object", load_musique, "m.jsonl", "[1, 2]\n", ("m.jsonl:1", "JSON object")),
    ("ircot-no-answer", load_ircot, "i.jsonl",
     json.dumps({"question_id": "z", "question_text": "Q?", "answers_objects": [{"spans": []}], "contexts": []}),
     ("i.jsonl:1", "'z'", "answers_objects", "no non-empty answer")),
    ("ircot-context-missing-text", load_ircot, "i.jsonl",
     json.dumps({"question_id": "z", "question_text": "Q?", "answers_objects": [{"spans": ["a"]}],
                 "contexts": [{"title": "T"}]}),
     ("i.jsonl:1", "contexts[0].paragraph_text", "missing")),
    ("iirc-missing-question", load_iirc, "dev.json", json.dumps(_iirc({"question": None})),
     ("dev.json", "passage #0 question #0", "q_1", "field 'question'")),
    ("iirc-unknown-answer-type", load_iirc, "dev.json", json.dumps(_iirc({"answer": {"type": "weird"}})),
     ("q_1", "answer.type", "unknown answer type 'weird'")),
    ("iirc-context-missing-passage", load_iirc, "dev.json", json.dumps(_iirc({"context": [{"text": "t"}]})),
     ("q_1", "context[0].passage", "missing")),
    ("strategyqa-answer-not-bool", load_strategyqa, "strategyqa_x.json", json.dumps(_sqa(answer="yes")),
     ("record #1 (id 'sq2')", "field 'answer'", "true or false")),
    ("strategyqa-missing-qid", load_strategyqa, "strategyqa_x.json",
     json.dumps([{k: v for k, v in r.items() if k != "qid"} for r in _sqa()]), ("record #0", "field 'qid'")),
    ("strategyqa-evidence-number", load_strategyqa, "strategyqa_x.json", json.dumps(_sqa(evidence=[[[3]]])),
     ("sq2", "field 'evidence'", "nested lists")),
    ("jsonl-empty-question", load_jsonl, "u.jsonl", json.dumps({**GOOD_JSONL, "question": ""}),
     ("u.jsonl:1", "record (id 'a')", "field 'question'", "must not be empty")),
    ("jsonl-no-answers", load_jsonl, "u.jsonl", json.dumps({**GOOD_JSONL, "answers": []}),
     ("u.jsonl:1", "field 'answers'", "at least one answer")),
    ("jsonl-answers-not-list", load_jsonl, "u.jsonl", json.dumps({**GOOD_JSONL, "answers": "x"}),
     ("field 'answers'", "expected a list")),
    ("jsonl-bad-answer-type", load_jsonl, "u.jsonl", json.dumps({**GOOD_JSONL, "answer_type": "bool"}),
     ("field 'answer_type'", "unknown answer type 'bool'")),
    ("jsonl-paragraph-missing-text", load_jsonl, "u.jsonl",
     json.dumps(GOOD_JSONL) + "\n" + json.dumps({**GOOD_JSONL, "id": "b", "paragraphs": [{"title": "T"}]}),
     ("u.jsonl:2", "'b'", "paragraphs[0].text", "missing")),
    ("jsonl-missing-id", load_jsonl, "u.jsonl", json.dumps({k: v for k, v in GOOD_JSONL.items() if k != "id"}),
     ("u.jsonl:1", "field 'id'", "missing")),
]


@pytest.mark.parametrize(("loader", "name", "content", "expected"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_bad_input_raises_one_clear_data_error(tmp_path: Path, loader: Callable[..., Any], name: str,
                                               content: str, expected: tuple[str, ...]) -> None:
    if loader is load_strategyqa:
        shutil.copy(FIXTURES / "strategyqa" / "strategyqa_paragraphs_small.jsonl",
                    tmp_path / "strategyqa_paragraphs_small.jsonl")
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(DataError) as info:
        loader(path)
    message = str(info.value)
    for part in expected:
        assert part in message, f"{part!r} not in {message!r}"
    assert str(path) in message


def test_missing_file_is_a_data_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="cannot read"):
        load_hotpotqa(tmp_path / "absent.json")
    with pytest.raises(DataError, match="cannot read"):
        load_musique(tmp_path / "absent.jsonl")


def test_non_utf8_file_is_a_data_error(tmp_path: Path) -> None:
    path = tmp_path / "latin.jsonl"
    path.write_bytes(b'{"id": "caf\xe9"}\n')
    with pytest.raises(DataError, match="UTF-8"):
        load_jsonl(path)
