"""MIGRES's prompts: the paper's text, a layout a prefix cache can reuse, and the authors' demonstrations."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from hopkit.errors import ConfigError, DataError
from hopkit.methods.migres import prompts
from hopkit.methods.migres.demonstrations import MODULES, load_migres_demonstrations

pytestmark = pytest.mark.unit

DEMOS = {"leaf": "Passage 0: (Title: T) t\nQuestion: q\nYour response: {}", "main": "MAIN DEMO",
         "query": "QUERY DEMO", "final_main": "FINAL DEMO", "forward": "Question: q\nInformation: KNOWLEDGE DEMO"}


def write_demos(folder: Path, data: object, name: str = "multihopQA_demons.json") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_the_instructions_are_the_papers() -> None:
    assert prompts.MAIN_INSTRUCTION.startswith("Answer the Question based solely on the provided Information.")
    assert '"confidence": confidence score }' in prompts.MAIN_INSTRUCTION  # Table 17, space included
    assert prompts.QUERY_INSTRUCTION.endswith("should differ from the Original Question and Historical Questions.")
    assert prompts.LEAF_INSTRUCTION.startswith("Given the following Question and Passages, please distillate")
    assert prompts.KNOWLEDGE_INSTRUCTION == "Generation relevant information to the given question."  # Table 15
    assert "based on your own knowledge" in prompts.FINAL_MAIN_INSTRUCTION


def test_fixed_parts_come_first_and_the_question_last() -> None:
    prefix = prompts.prefixed(prompts.LEAF_INSTRUCTION, "DEMOS")
    assert prefix == prompts.LEAF_INSTRUCTION + "\n\nDEMOS\n\n"
    assert prompts.prefixed(prompts.LEAF_INSTRUCTION, None) == prompts.LEAF_INSTRUCTION + "\n\n"
    assert prompts.leaf_instance([("t0", "A"), ("own knowledge", None)], "Q?") == (
        "Passage 0: (Title: A) t0\nPassage 1: own knowledge\nQuestion: Q?\nYour response:")
    assert prompts.main_instance([], "Q?") == "Information: None\nQuestion: Q?\nYour response:"
    assert prompts.query_instance("Q?", ["Q?", "R?"], ["a", "b"], "m") == (
        "Original Question: Q?\nHistorical Questions: Q? R?\nKnown Information: a; b\nMissing Information: m\n"
        "New queries:")


def test_the_demonstrations_are_read_by_module(tmp_path: Path) -> None:
    path = write_demos(tmp_path, DEMOS)
    demos = load_migres_demonstrations("multihop", tmp_path)
    assert (demos.main, demos.final_main, demos.knowledge, demos.source) == (
        "MAIN DEMO", "FINAL DEMO", DEMOS["forward"], str(path))


def test_the_data_folder_is_found_through_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_demos(tmp_path / "migres", DEMOS, "CommonsenseQA_demons.json")
    monkeypatch.setenv("HOPKIT_DATA_DIR", str(tmp_path))
    assert load_migres_demonstrations("commonsense").query == "QUERY DEMO"
    monkeypatch.delenv("HOPKIT_DATA_DIR")
    with pytest.raises(DataError, match="HOPKIT_DATA_DIR"):
        load_migres_demonstrations("commonsense")


@pytest.mark.parametrize(("data", "message"), [
    ({k: v for k, v in DEMOS.items() if k != "query"}, "field 'query': missing"),
    ({**DEMOS, "leaf": ["a"]}, "field 'leaf': expected the demonstrations as non-empty text"),
    ({**DEMOS, "forward": "  "}, "field 'forward'"),
    (["leaf"], "expected a mapping of the modules"),
])
def test_a_bad_file_is_named_with_its_field(tmp_path: Path, data: object, message: str) -> None:
    path = write_demos(tmp_path, data)
    with pytest.raises(DataError) as error:
        load_migres_demonstrations("multihop", tmp_path)
    assert str(error.value).startswith(str(path)) and message in str(error.value)


def test_a_missing_or_broken_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="odqa_demons.json: no such file"):
        load_migres_demonstrations("odqa", tmp_path)
    (tmp_path / "odqa_demons.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(DataError, match=r"odqa_demons.json:1: not valid JSON"):
        load_migres_demonstrations("odqa", tmp_path)
    assert set(MODULES) == set(DEMOS)


def test_few_shot_prompts_put_the_demonstrations_after_the_instruction(kit: SimpleNamespace,
                                                                       tmp_path: Path) -> None:
    write_demos(tmp_path, DEMOS)
    demos = load_migres_demonstrations("multihop", tmp_path)
    model = kit.ModuleModel(kit.two_hop_handlers())
    method = kit.build(model)
    config = dataclasses.replace(method.config, few_shot=True)
    with pytest.raises(ConfigError, match="few_shot"):
        type(method)(model.llm, method.retriever, config, reranker=method.reranker, nli=method.nli)
    few_shot = type(method)(model.llm, method.retriever, config, demos, reranker=method.reranker, nli=method.nli)
    few_shot.generate(kit.QUESTION)
    leaf, main = model.llm.prompts[:2]
    assert leaf.startswith(prompts.LEAF_INSTRUCTION + "\n\n" + DEMOS["leaf"] + "\n\nPassage 0: ")
    assert main.startswith(prompts.MAIN_INSTRUCTION + "\n\nMAIN DEMO\n\nInformation: ")
