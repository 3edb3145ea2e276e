"""ITER-RETGEN's loop (Shao et al., 2023, Section 2): T rounds of retrieval with the question and
the previous generation, each followed by a chain of thought over that round's paragraphs."""

from __future__ import annotations

from pathlib import Path

import pytest

from hopkit.errors import ConfigError
from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.demonstrations import DemonstrationSpec
from hopkit.methods.iter_retgen import METHOD, IterRetGen, IterRetGenConfig, IterRetGenOptions
from hopkit.methods.iter_retgen.steps import IterRetGenRead, IterRetGenRetrieve
from hopkit.methods.registry import MethodParts
from hopkit.prompts.ircot_files import AUTHORS_DEMONSTRATION_QIDS, qa_prompt_file_name
from hopkit.records import Query
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.traces import collect_trace
from tests import fictional_corpus
from tests.chained import assert_chained

pytestmark = pytest.mark.unit

CORPUS = list(fictional_corpus.paragraphs(5))
QUESTION = Query("q1", "Where was the founder of Velmora Ironworks born?", ("Tarsk",))
FIRST = "Velmora Ironworks was founded by Ada Quill. So the answer is: Velmora."
SECOND = "Velmora Ironworks was founded by Ada Quill. Ada Quill was born in Tarsk. So the answer is: Tarsk."


def run(config: IterRetGenConfig, replies: list[str], demonstrations: tuple[str, ...] = ()) -> tuple:
    llm = ScriptedLLM(replies)
    with collect_trace() as trace:
        result = IterRetGen(llm, BM25Retriever.build(CORPUS), config, demonstrations).generate(QUESTION)
    assert_chained(trace.steps)  # each step follows the one before (parent=PREVIOUS)
    return result, llm.prompts, trace.steps


def test_the_second_round_retrieves_with_the_question_and_the_first_generation() -> None:
    result, prompts, steps = run(IterRetGenConfig(iterations=2, k=2), [FIRST, SECOND])
    retrievals = [s.payload(IterRetGenRetrieve) for s in steps if s.kind == "retrieve"]
    assert [r.query for r in retrievals] == [QUESTION.text, f"{QUESTION.text} {FIRST}"]
    assert [r.iteration for r in retrievals] == [1, 2]
    assert steps[0].paragraph_ids[0] == 0 and 1 not in steps[0].paragraph_ids  # the question: the company
    assert 1 in steps[2].paragraph_ids  # with "Ada Quill" from the first generation, her page too
    assert "Wikipedia Title: Ada Quill" in prompts[1] and "Wikipedia Title: Ada Quill" not in prompts[0]
    assert result.text == "Tarsk" and result.chunk_ids == steps[2].paragraph_ids  # what the last generation read
    assert result.metadata.answers == ("Velmora", "Tarsk")
    assert [s.kind for s in steps] == ["retrieve", "read", "retrieve", "read"]
    assert [s.parent for s in steps] == [None, 1, 2, 3]


def test_each_generation_is_a_chain_of_thought_over_the_round_s_paragraphs_and_the_question() -> None:
    _, prompts, steps = run(IterRetGenConfig(iterations=3, k=2), [FIRST, SECOND, SECOND])
    assert len(prompts) == 3
    reads = [s.payload(IterRetGenRead) for s in steps if s.kind == "read"]
    shown = [s.paragraph_ids for s in steps if s.kind == "read"]
    assert shown == [s.paragraph_ids for s in steps if s.kind == "retrieve"] and len(shown[1]) == 2
    for prompt, ids in zip(prompts, shown):
        assert prompt.rstrip().endswith(f"Q: {QUESTION.text}\nA:")
        assert prompt.count("Wikipedia Title:") == len(ids)
    assert [r.generation for r in reads] == [FIRST, SECOND, SECOND]


def test_one_iteration_is_one_retrieval_with_the_question_and_one_reading() -> None:
    result, prompts, steps = run(IterRetGenConfig(iterations=1, k=2), [SECOND])
    assert len(prompts) == 1 and [s.kind for s in steps] == ["retrieve", "read"] and result.text == "Tarsk"


def test_the_prompt_holds_the_demonstrations_given() -> None:
    demonstration = "Wikipedia Title: A\nA is b.\n\nQ: What is A?\nA: A is b. So the answer is: b."
    _, prompts, _ = run(IterRetGenConfig(iterations=1), [SECOND], (demonstration,))
    assert prompts[0].startswith(demonstration)


def test_build_keeps_the_first_shots_of_the_authors_demonstrations(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "ircot" / "prompts" / "hotpotqa"
    folder.mkdir(parents=True)
    demonstrations = [f'# METADATA: {{"qid": "{qid}"}}\nWikipedia Title: T{n}\nText {n}.\n\nQ: Question {n}?\n'
                      f"A: Because {n}. So the answer is: {n}." for n, qid in
                      enumerate(AUTHORS_DEMONSTRATION_QIDS["hotpotqa"])]
    (folder / qa_prompt_file_name("gold_with_2_distractors", "cot", "codex")).write_text(
        "\n\n\n".join(demonstrations), encoding="utf-8")
    monkeypatch.setenv("HOPKIT_DATA_DIR", str(tmp_path))
    llm = ScriptedLLM([SECOND])
    options = IterRetGenOptions(iterations=1, demonstrations=DemonstrationSpec("hotpotqa"), shots=3)
    METHOD.build(MethodParts(llm, BM25Retriever.build(CORPUS), options, dataset="toy")).generate(QUESTION)
    assert [f"Q: Question {n}?" in llm.prompts[0] for n in range(5)] == [True, True, True, False, False]
    assert METHOD.warnings is not None and METHOD.warnings(options) == []
    assert "zero-shot" in METHOD.warnings(IterRetGenOptions())[0]


@pytest.mark.parametrize("field", ["iterations", "k", "max_tokens"])
def test_a_count_below_one_is_refused_naming_the_option(field: str) -> None:
    with pytest.raises(ConfigError, match=f"'{field}'"):
        IterRetGenConfig(**{field: 0})


def test_the_defaults_are_the_paper_s() -> None:
    options = IterRetGenOptions()
    assert (options.iterations, options.k, options.shots) == (2, 5, 3)
