"""FLARE's six StrategyQA exemplars (jzbjyb/FLARE, src/datasets.py) as demonstrations: the authors'
statements before each question, their chain ending in "So the final answer is ...", and FLARE's
prompt holding them when ``demonstrations: {dataset: flare-strategyqa}``."""

from __future__ import annotations

import math
import re

import pytest

from hopkit.errors import ConfigError
from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.demonstrations import DemonstrationSpec, load_demonstrations
from hopkit.methods.flare import METHOD, FLAREOptions
from hopkit.methods.registry import MethodParts
from hopkit.parsing.answers import extract_answer
from hopkit.prompts.flare_strategyqa import FLARE_STRATEGYQA_EXEMPLARS, load_flare_strategyqa_demonstrations
from hopkit.records import Paragraph, Query
from hopkit.retrieval.bm25 import BM25Retriever

pytestmark = pytest.mark.unit

SPEC = DemonstrationSpec("flare-strategyqa", distractors=0)


def test_the_six_exemplars_are_the_authors_three_yes_and_three_no() -> None:
    assert [e.answer for e in FLARE_STRATEGYQA_EXEMPLARS] == ["yes", "yes", "no", "yes", "no", "no"]
    assert FLARE_STRATEGYQA_EXEMPLARS[5].question == "Would a pear sink in water?"


def test_a_demonstration_is_the_statements_then_the_question_then_the_chain_and_its_answer() -> None:
    pear = load_flare_strategyqa_demonstrations()[5]
    assert pear == ("The density of a raw pear is about 0.59 g/cm^3.\n\nThe density of water is about 1 g/cm^3.\n\n"
                    "Objects only sink if they are denser than the surrounding fluid.\n\n"
                    "Q: Would a pear sink in water?\n"
                    "A: The density of a pear is about 0.6g/cm^3, which is less than water. Objects less dense than "
                    "water float. Thus, a pear would float. So the final answer is no.")
    assert "Wikipedia Title" not in pear


@pytest.mark.parametrize("exemplar", FLARE_STRATEGYQA_EXEMPLARS, ids=lambda e: e.question[:20])
def test_the_answer_parser_reads_each_chain_back_to_its_answer(exemplar) -> None:
    demonstration = load_flare_strategyqa_demonstrations()[FLARE_STRATEGYQA_EXEMPLARS.index(exemplar)]
    assert extract_answer(demonstration.rsplit("\nA: ", 1)[1]) == exemplar.answer


def test_without_context_a_direct_demonstration_is_the_question_and_its_answer() -> None:
    assert load_demonstrations(SPEC, "direct", with_context=False)[0] == (
        "Q: Do hamsters provide food for any animals?\nA: yes")


@pytest.mark.parametrize("options", [{"distractors": 1}, {"distractors": 0, "family": "flan_t5"}])
def test_the_set_takes_no_distractors_and_no_instruction_family(options: dict) -> None:
    with pytest.raises(ConfigError, match="flare-strategyqa demonstrations .* distractors: 0 and family: codex"):
        DemonstrationSpec("flare-strategyqa", **options)


def test_flare_with_the_set_prompts_with_the_six_exemplars_before_the_question() -> None:
    llm = ScriptedLLM(lambda prompt: " So the final answer is no.",
                      token_scores=lambda prompt, text: [(w, math.log(0.9)) for w in re.findall(r"\s*\S+", text)])
    corpus = [Paragraph(0, "Grey Sea", "The Grey Sea is cold all year.")]
    options = FLAREOptions(k=3, theta=0.4, shots=6, demonstrations=SPEC)
    flare = METHOD.build(MethodParts(llm, BM25Retriever.build(corpus), options, dataset="strategyqa"))
    result = flare.generate(Query("q", "Would a swimmer like the Grey Sea?", ("no",)))
    assert result.text == "no"
    prompt = llm.prompts[0]
    assert all(e.question in prompt for e in FLARE_STRATEGYQA_EXEMPLARS)
    assert prompt.endswith("Wikipedia Title: Grey Sea\nThe Grey Sea is cold all year.\n\n"
                           "Q: Would a swimmer like the Grey Sea?\nA:")
