"""StrategyQA demonstrations made from annotated questions: cited paragraphs, then the facts as
the chain of thought, in the IRCoT authors' layout; and ``demonstrations: {dataset: strategyqa}``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hopkit.errors import ConfigError, DataError
from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.demonstrations import DemonstrationSpec, load_demonstrations
from hopkit.methods.iter_retgen import METHOD, IterRetGenOptions
from hopkit.methods.registry import MethodParts
from hopkit.prompts.strategyqa_demonstrations import STRATEGYQA_DEMONSTRATION_QIDS, load_strategyqa_demonstrations
from hopkit.records import Paragraph, Query
from hopkit.retrieval.bm25 import BM25Retriever

pytestmark = pytest.mark.unit

TOY_QUESTIONS = [
    ("Could the Orl River fill Lake Vask?", False, ["The Orl River carries 3 cubic km a year", "Lake Vask holds 90."],
     "Orl River-0"),
    ("Was Tarsk founded by a sailor?", True, ["Tarsk was founded by Ada Quill.", "Ada Quill was a sailor."],
     "Tarsk-1"),
    ("Is the Grey Sea warm?", False, ["The Grey Sea is cold."], "Grey Sea-0"),
]


def write_sample(folder: Path, facts_of_first: list[str] | None = None,
                 qids: tuple[str, ...] = STRATEGYQA_DEMONSTRATION_QIDS) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    rows, paragraphs = [], []
    for qid, (question, answer, facts, key) in zip(qids, TOY_QUESTIONS):
        rows.append({"qid": qid, "term": "", "description": "", "question": question, "answer": answer,
                     "facts": facts, "decomposition": [], "evidence": [[[[key]], ["operation"]]]})
        title, index = key.rsplit("-", 1)
        paragraphs.append({"title": title, "section": "", "headers": [], "para_index": int(index),
                           "contents": f"{title} is described here."})
    if facts_of_first is not None:
        rows[0]["facts"] = facts_of_first
    path = folder / "strategyqa_dev_sample.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    (folder / "strategyqa_paragraphs_sample.jsonl").write_text(
        "\n".join(json.dumps(p) for p in paragraphs), encoding="utf-8")
    return path


def test_a_chain_of_thought_demonstration_is_the_cited_paragraphs_then_the_facts_then_the_answer(tmp_path: Path
                                                                                                  ) -> None:
    first, second, third = load_strategyqa_demonstrations(path=write_sample(tmp_path))
    assert first == ("Wikipedia Title: Orl River\nOrl River is described here.\n\n"
                     "Q: Could the Orl River fill Lake Vask?\n"
                     "A: The Orl River carries 3 cubic km a year. Lake Vask holds 90. So the answer is: no.")
    assert second.endswith("A: Tarsk was founded by Ada Quill. Ada Quill was a sailor. So the answer is: yes.")
    assert third.startswith("Wikipedia Title: Grey Sea\n")


def test_a_direct_demonstration_without_context_is_the_question_and_its_answer(tmp_path: Path) -> None:
    assert load_strategyqa_demonstrations("direct", with_context=False, path=write_sample(tmp_path)) == [
        "Q: Could the Orl River fill Lake Vask?\nA: no", "Q: Was Tarsk founded by a sailor?\nA: yes",
        "Q: Is the Grey Sea warm?\nA: no"]


def test_a_file_without_a_demonstration_question_is_refused_naming_the_file_and_the_question(tmp_path: Path) -> None:
    path = write_sample(tmp_path, qids=("other", *STRATEGYQA_DEMONSTRATION_QIDS[1:]))
    with pytest.raises(DataError, match=STRATEGYQA_DEMONSTRATION_QIDS[0]) as caught:
        load_strategyqa_demonstrations(path=path)
    assert caught.value.path == str(path)


@pytest.mark.parametrize("facts", [[], ["  "], [3.5, {}]])
def test_a_demonstration_question_without_usable_facts_is_refused_naming_the_field(tmp_path: Path, facts: list
                                                                                   ) -> None:
    with pytest.raises(DataError) as caught:
        load_strategyqa_demonstrations(path=write_sample(tmp_path, facts_of_first=facts))
    assert caught.value.field is not None and caught.value.field.startswith("facts")
    assert STRATEGYQA_DEMONSTRATION_QIDS[0] in str(caught.value.record)


def test_the_strategyqa_set_holds_cited_paragraphs_alone_and_says_which_options_to_set() -> None:
    assert DemonstrationSpec("strategyqa", distractors=0).dataset == "strategyqa"
    for spec in ({"distractors": 2}, {"distractors": 0, "family": "flan_t5"}):
        with pytest.raises(ConfigError, match="distractors: 0 and family: codex"):
            DemonstrationSpec("strategyqa", **spec)
    with pytest.raises(ConfigError, match="strategyqa"):
        DemonstrationSpec("strategyqaa")


def test_iter_retgen_with_the_strategyqa_set_reads_them_from_the_data_folder(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    write_sample(tmp_path / "strategyqa")
    monkeypatch.setenv("HOPKIT_DATA_DIR", str(tmp_path))
    spec = DemonstrationSpec("strategyqa", distractors=0)
    assert load_demonstrations(spec, "cot", with_context=True) == load_strategyqa_demonstrations(
        path=tmp_path / "strategyqa" / "strategyqa_dev_sample.json")
    llm = ScriptedLLM(["The Grey Sea is cold. So the answer is: no."])
    test_question = Query("q", "Would a swimmer like the Grey Sea?", ("no",))
    options = IterRetGenOptions(iterations=1, demonstrations=spec, shots=2)
    corpus = [Paragraph(0, "Grey Sea", "The Grey Sea is cold.")]
    parts = MethodParts(llm, BM25Retriever.build(corpus), options, dataset="strategyqa")
    result = METHOD.build(parts).generate(test_question)
    assert result.text == "no"
    assert [question in llm.prompts[0] for question, *_ in TOY_QUESTIONS] == [True, True, False]
