"""The LLM as judge: yes/no log-odds from score_continuations, the reader's span and confidence, timing."""

from __future__ import annotations

import math
import os

import pytest

from hopkit.errors import ConfigError, LLMError
from hopkit.judges import (AnswerJudge, EntailmentJudge, LLMAnswerJudge, LLMEntailmentJudge, LLMRelevanceJudge,
                           LLMSimilarityJudge, RelevanceJudge, SimilarityJudge, SpanAnswer)
from hopkit.judges.llm_prompts import (ANSWER_CHECK_PROMPT, ANSWER_CHECK_SUFFIX, ANSWER_EXAMPLES, ANSWER_PROMPT,
                                      ANSWER_PROMPT_WITH_EXAMPLES, RELEVANCE_PROMPT)
from hopkit.judges.llm_yes_no import sigmoid
from hopkit.llm.fake import ScriptedLLM
from hopkit.llm.meter import MeteredLLM
from hopkit.usage import track_usage

pytestmark = pytest.mark.unit

PARIS = "Paris is the capital and largest city of France."
WOOL = "The market of Avel sells wool and cheese."


def yes_no(p_yes: float, p_no: float) -> dict[str, float]:
    return {" yes": math.log(p_yes), " no": math.log(p_no)}


def by_passage(prompt: str) -> dict[str, float]:
    """A model that says yes when the prompt holds the Paris passage."""
    return yes_no(0.9, 0.05) if PARIS in prompt else yes_no(0.1, 0.8)


def test_relevance_is_the_log_odds_of_yes_against_no() -> None:
    llm = ScriptedLLM([], scores=by_passage)
    judge = LLMRelevanceJudge(llm)
    assert isinstance(judge, RelevanceJudge) and judge.judge_id == "llm:scripted"
    scores = judge.relevance("What is the capital of France?", [WOOL, PARIS])
    assert scores == pytest.approx([math.log(0.1 / 0.8), math.log(0.9 / 0.05)])
    assert scores[1] > 0 > scores[0]
    prompts = [prompt for prompt, _ in llm.scored]
    assert prompts[1] == RELEVANCE_PROMPT.format(query="What is the capital of France?", text=PARIS)
    assert [candidates for _, candidates in llm.scored] == [(" yes", " no")] * 2
    assert llm.prompts == []  # nothing generated
    assert judge.relevance("q", []) == []


def test_the_shared_part_of_a_batch_comes_first_for_the_kv_cache() -> None:
    shared = os.path.commonprefix([RELEVANCE_PROMPT.format(query="Q?", text=text) for text in ("one", "two")])
    assert shared.endswith("Question: Q?\nPassage: ")
    tail = RELEVANCE_PROMPT.split("{text}", 1)[1]  # what follows the passage: a short fixed question
    assert "{" not in tail and len(tail.split()) < 20
    reading = ANSWER_PROMPT.format(passage=PARIS, question="Q?")
    assert ANSWER_CHECK_PROMPT.format(passage=PARIS, question="Q?", answer="Paris").startswith(reading)


def test_entailment_and_similarity_are_the_probability_of_yes_within_yes_or_no() -> None:
    llm = ScriptedLLM([], scores=lambda prompt: yes_no(0.6, 0.2) if "Paris" in prompt else yes_no(0.01, 0.9))
    entailment = LLMEntailmentJudge(llm)
    assert isinstance(entailment, EntailmentJudge)
    assert entailment.entailment([(PARIS, "Paris is in France."), (WOOL, "Avel sells fish.")]) == pytest.approx(
        [0.6 / 0.8, 0.01 / 0.91])
    similarity = LLMSimilarityJudge(llm)
    assert isinstance(similarity, SimilarityJudge)
    assert similarity.similarity("Where is Paris?", ["In which country is Paris?"]) == pytest.approx([0.75])
    assert "Query 1: Where is Paris?\nQuery 2: In which country is Paris?" in llm.scored[-1][0]


def test_sigmoid_is_stable_at_both_ends() -> None:
    assert sigmoid(0.0) == 0.5 and sigmoid(800.0) == 1.0 and sigmoid(-800.0) == 0.0
    assert sigmoid(math.log(3.0)) == pytest.approx(0.75) and sigmoid(-math.log(3.0)) == pytest.approx(0.25)


def test_the_reader_generates_a_span_and_checks_it_with_yes_or_no() -> None:
    llm = ScriptedLLM([" Paris.\n", "  \n"], scores=lambda prompt: yes_no(0.8, 0.1))
    judge = LLMAnswerJudge(llm, max_tokens=8)
    assert isinstance(judge, AnswerJudge)
    answers = judge.answer([("What is the capital of France?", PARIS), ("Who sells fish?", WOOL)])
    assert answers[0] == SpanAnswer(text="Paris", confidence=pytest.approx(math.log(8.0)), start=0)
    assert answers[1] == SpanAnswer(text="", confidence=-math.inf)  # nothing read: nothing checked
    assert llm.prompts[0] == ANSWER_PROMPT.format(passage=PARIS, question="What is the capital of France?")
    assert len(llm.scored) == 1
    assert llm.scored[0][0] == ANSWER_CHECK_PROMPT.format(passage=PARIS, question="What is the capital of France?",
                                                          answer="Paris")


def test_the_worked_examples_open_the_reading_and_the_check_and_name_the_reader() -> None:
    llm = ScriptedLLM(["Paris"], scores=lambda prompt: yes_no(0.8, 0.1))
    judge = LLMAnswerJudge(llm, examples=True)
    assert judge.judge_id == "llm:scripted+examples" and LLMAnswerJudge(llm).judge_id == "llm:scripted"
    judge.answer([("What is the capital of France?", PARIS)])
    reading = ANSWER_PROMPT_WITH_EXAMPLES.format(passage=PARIS, question="What is the capital of France?")
    assert llm.prompts[0] == reading and reading.startswith(ANSWER_EXAMPLES)
    assert llm.scored[0][0] == reading + ANSWER_CHECK_SUFFIX.format(answer="Paris")


def test_the_examples_answer_their_questions_with_spans_of_their_passages() -> None:
    blocks = ANSWER_EXAMPLES.strip().split("\n\n")[1:]
    assert len(blocks) == 3
    for block in blocks:
        passage, question, answer = block.split("\n")
        span = answer.removeprefix("Answer: ")
        assert passage.startswith("Passage: ") and question.startswith("Question: ") and answer != span
        assert span in passage and len(span.split()) <= 2


def test_a_generated_answer_outside_the_passage_has_no_offset() -> None:
    llm = ScriptedLLM(["the city of PARIS", "Lyon"], scores=yes_no(0.5, 0.5))
    answers = LLMAnswerJudge(llm).answer([("Q?", "Capital: the City of Paris."), ("Q?", PARIS)])
    assert answers[0].start == 9 and answers[1].start is None
    assert answers[1].confidence == pytest.approx(0.0)


def test_a_model_that_cannot_score_is_refused_at_construction() -> None:
    for judge in (LLMRelevanceJudge, LLMEntailmentJudge, LLMSimilarityJudge, LLMAnswerJudge):
        with pytest.raises(LLMError, match=r"ScriptedLLM\('scripted'\) does not support 'scoring' .*needed by "
                                           r"the LLM \w+ judge"):
            judge(ScriptedLLM(["a"]))


def test_prompts_and_answers_are_checked() -> None:
    llm = ScriptedLLM([], scores=yes_no(0.5, 0.5))
    with pytest.raises(ConfigError, match=r"placeholders \{query\}, \{text\}; it has \{text\}"):
        LLMRelevanceJudge(llm, prompt="Passage: {text}\nAnswer:")
    with pytest.raises(ConfigError, match="not a valid template"):
        LLMEntailmentJudge(llm, prompt="{premise} {hypothesis")
    with pytest.raises(ConfigError, match="two different non-empty strings"):
        LLMSimilarityJudge(llm, yes=" yes", no=" yes")
    with pytest.raises(ConfigError, match="'check_prompt'"):
        LLMAnswerJudge(llm, check_prompt="{passage} {question}")
    with pytest.raises(ConfigError, match=r"max_tokens': expected an integer >= 1, got 0"):
        LLMAnswerJudge(llm, max_tokens=0)


def test_chat_style_answers_without_a_leading_space() -> None:
    llm = ScriptedLLM([], scores={"yes": math.log(0.7), "no": math.log(0.3)})
    assert LLMEntailmentJudge(llm, yes="yes", no="no").entailment([("a", "b")]) == pytest.approx([0.7])


def test_each_judge_call_counts_under_its_component_with_its_model_calls() -> None:
    llm = MeteredLLM(ScriptedLLM(["Paris"], scores=by_passage))
    relevance, answer = LLMRelevanceJudge(llm), LLMAnswerJudge(llm)
    with track_usage() as usage:
        relevance.relevance("capital?", [PARIS, WOOL, PARIS])
        answer.answer([("capital?", PARIS)])
    assert usage.calls("judge:relevance") == 1 and usage.calls("judge:answer") == 1
    relevance_cost, answer_cost = usage.components["judge:relevance"], usage.components["judge:answer"]
    assert "model" not in usage.components and usage.llm_calls == relevance_cost.llm_calls + answer_cost.llm_calls
    assert relevance_cost.llm_calls >= 1 and answer_cost.llm_calls >= 1 and relevance_cost.prompt_tokens > 0
    assert usage.seconds("judge:relevance") >= 0.0
    relevance.relevance("capital?", [PARIS])  # no open block: nothing recorded, nothing fails
