"""FlashRAG's dataset format (``id``, ``question``, ``golden_answers``, ``metadata``) on fixtures the tests write."""

from __future__ import annotations

import bz2
import gzip
import json
from pathlib import Path

import pytest

from hopkit.data.flashrag_hub import FLASHRAG_SPLITS, default_split, flashrag_hub_file
from hopkit.data.formats import load_flashrag
from hopkit.data.registry import load_dataset
from hopkit.errors import ConfigError, DataError

pytestmark = pytest.mark.unit

ROWS = [
    {"id": "test_0", "question": "Who was the mother of the composer of “Les Troyens”?",
     "golden_answers": ["Marie-Antoinette-Joséphine Marmion", "Joséphine Marmion"],
     "metadata": {"type": "compositional", "level": "hard", "supporting_facts": [["Berlioz", 0]]}},
    {"id": 1, "question": "How many moons has Mars?", "golden_answers": [2, "two", "two"], "metadata": None},
    {"id": "test_2", "question": "Is Oslo in Norway?", "golden_answers": ["yes"], "metadata": []},
]


def text(rows: list[object]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz", ".jsonl.bz2"])
def test_every_golden_answer_is_kept_in_file_order(tmp_path: Path, suffix: str) -> None:
    data = text(ROWS).encode("utf-8")
    path = tmp_path / f"dev{suffix}"
    path.write_bytes(gzip.compress(data) if suffix.endswith(".gz") else
                     bz2.compress(data) if suffix.endswith(".bz2") else data)
    first, second, third = load_flashrag(path)
    assert first.id == "test_0" and first.question.endswith("“Les Troyens”?")
    assert first.answers == ("Marie-Antoinette-Joséphine Marmion", "Joséphine Marmion")
    assert first.context == () and first.answer_type == "span"
    assert (second.id, second.answers) == ("1", ("2", "two"))  # a number kept as text, a repeat dropped
    assert third.answer_type == "yes_no"


@pytest.mark.parametrize(("line", "field", "message"), [
    ('{"question": "Q?", "golden_answers": ["a"]}', "'id'", "missing required field"),
    ('{"id": "x", "golden_answers": ["a"]}', "'question'", "missing required field"),
    ('{"id": "x", "question": "Q?"}', "'golden_answers'", "missing required field"),
    ('{"id": "x", "question": "Q?", "golden_answers": "a"}', "'golden_answers'", "expected a list, got a string"),
    ('{"id": "x", "question": "Q?", "golden_answers": []}', "'golden_answers'", "at least one non-empty answer"),
    ('{"id": "x", "question": "Q?", "golden_answers": ["", " "]}', "'golden_answers'", "at least one non-empty"),
    ('{"id": "x", "question": "Q?", "golden_answers": ["a", null]}', "'golden_answers[1]'", "expected a string"),
    ('{"id": "test_0", "question": "Q?", "golden_answers": ["a"]}', "'id'", "id already used on line 1"),
    ('["id", "question"]', None, "expected a JSON object, got a list"),
    ('{"id": "x", "question": "Q?", "golden_answers": ["a"]', None, "malformed JSON"),
])
def test_a_bad_line_is_named_by_file_line_and_field(tmp_path: Path, line: str, field: str | None,
                                                    message: str) -> None:
    path = tmp_path / "dev.jsonl"
    path.write_text(text(ROWS[:1]) + line + "\n", encoding="utf-8")
    with pytest.raises(DataError) as caught:
        load_flashrag(path)
    assert f"{path}:2" in str(caught.value) and message in str(caught.value)
    if field is not None:
        assert f"field {field}" in str(caught.value)


def test_first_keeps_the_first_questions_in_order_and_limit_samples(tmp_path: Path) -> None:
    path = tmp_path / "dev.jsonl"
    path.write_text(text([{"id": f"q{i}", "question": f"Q{i}?", "golden_answers": [f"a{i}"]} for i in range(50)]),
                    encoding="utf-8")
    assert [e.id for e in load_dataset("flashrag", path, first=5)] == ["q0", "q1", "q2", "q3", "q4"]
    sampled = [e.id for e in load_dataset("flashrag", path, limit=5, seed=1)]
    assert sampled == [e.id for e in load_dataset("flashrag", path, limit=5, seed=1)] != ["q0", "q1", "q2", "q3", "q4"]
    assert len(load_dataset("flashrag", path, first=500)) == 50
    with pytest.raises(ConfigError, match="not both"):
        load_dataset("flashrag", path, first=5, limit=5)
    with pytest.raises(ConfigError, match="first must be a positive integer"):
        load_dataset("flashrag", path, first=0)
    with pytest.raises(ConfigError, match="split 'dev' is for a benchmark from the Hub"):
        load_dataset("flashrag", path, split="dev")


def test_the_hub_layout_is_dataset_slash_split_jsonl() -> None:
    assert set(FLASHRAG_SPLITS) >= {"nq", "triviaqa", "popqa", "hotpotqa", "2wikimultihopqa", "musique", "bamboogle"}
    file = flashrag_hub_file("flashrag/2wikimultihopqa")
    assert (file.repo, file.file, file.repo_type) == ("RUC-NLPIR/FlashRAG_datasets", "2wikimultihopqa/dev.jsonl",
                                                      "dataset")
    assert file.uri == "hf://datasets/RUC-NLPIR/FlashRAG_datasets/2wikimultihopqa/dev.jsonl"
    assert (default_split("bamboogle"), default_split("popqa"), default_split("nq")) == ("test", "test", "dev")
    assert flashrag_hub_file("flashrag/nq", "test").file == "nq/test.jsonl"
    assert flashrag_hub_file("flashrag/wiki_qa", "train").file == "wiki_qa/train.jsonl"  # other folders load too
    for bad in ("flashrag/", "flashrag/../x", "flashrag/a/b"):
        with pytest.raises(ConfigError, match="expected flashrag/NAME"):
            flashrag_hub_file(bad)
    with pytest.raises(ConfigError, match="publishes bamboogle's test split"):
        flashrag_hub_file("flashrag/bamboogle", "dev")
    with pytest.raises(ConfigError, match="expected a split name"):
        flashrag_hub_file("flashrag/nq", "../dev")
