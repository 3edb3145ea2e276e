"""Self-Ask's loop with a retriever (Press et al., 2023; paragraphs before the question as Shao et al.
give them): follow-ups until the model asks none, retrieval for each, the final answer."""

from __future__ import annotations

import pytest

from hopkit.errors import ConfigError
from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.self_ask import METHOD, SelfAsk, SelfAskConfig
from hopkit.methods.self_ask.prompts import DEMONSTRATIONS
from hopkit.methods.self_ask.steps import SelfAskAsk, SelfAskRead, SelfAskRetrieve
from hopkit.records import Query
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.traces import collect_trace
from tests import fictional_corpus
from tests.chained import assert_chained

pytestmark = pytest.mark.unit

CORPUS = list(fictional_corpus.paragraphs(3))
QUESTION = Query("q1", "Where was the founder of Velmora Ironworks born?", ("Tarsk",))
TRAJECTORY = (" Yes.\nFollow up: Who founded Velmora Ironworks?\n"
              "Intermediate answer: Ada Quill founded Velmora Ironworks.\nFollow up: Where is Ada Quill from?\n"
              "Intermediate answer: Ada Quill was from Tarsk.\nSo the final answer is: Tarsk")


def model(trajectory: str):
    """A model that knows the whole trajectory and goes on from wherever the prompt ends."""
    def reply(prompt: str) -> str:
        written = prompt.split("Are follow up questions needed here:")[-1]
        return trajectory[len(written):] if trajectory.startswith(written) else ""
    return reply


def run(config: SelfAskConfig, llm: ScriptedLLM) -> tuple:
    with collect_trace() as trace:
        result = SelfAsk(llm, BM25Retriever.build(CORPUS), config).generate(QUESTION)
    assert_chained(trace.steps)  # each step follows the one before (parent=PREVIOUS)
    return result, trace.steps


def test_each_follow_up_is_retrieved_for_and_answered_by_the_model_until_the_final_answer() -> None:
    llm = ScriptedLLM(model(TRAJECTORY))
    result, steps = run(SelfAskConfig(k=1), llm)
    assert result.text == "Tarsk" and result.metadata.forced_final is None
    assert result.metadata.follow_ups == ("Who founded Velmora Ironworks?", "Where is Ada Quill from?")
    queries = [s.payload(SelfAskRetrieve).query for s in steps if s.kind == "retrieve"]
    assert queries == [QUESTION.text, "Who founded Velmora Ironworks?", "Where is Ada Quill from?"]
    assert [s.kind for s in steps] == ["retrieve", "reason", "retrieve", "reason", "retrieve", "reason", "extract"]
    assert len(llm.prompts) == 3  # one generation per retrieval, as Shao et al.'s cost table counts
    first, second, third = llm.prompts
    assert first.startswith(DEMONSTRATIONS) and first.endswith(f"Question: {QUESTION.text}\n"
                                                               "Are follow up questions needed here:")
    assert second.endswith("Follow up: Who founded Velmora Ironworks?\nIntermediate answer:")
    assert third.endswith("Follow up: Where is Ada Quill from?\nIntermediate answer:")
    # the paragraphs gathered so far sit before the question, each once
    assert third.index("Wikipedia Title: Ada Quill") < third.index(f"Question: {QUESTION.text}")
    assert third.count("Wikipedia Title: Velmora Ironworks") == 1
    assert result.chunk_ids == (0, 1)
    assert [s.payload(SelfAskAsk).follow_up for s in steps if s.kind == "reason"] == [
        "Who founded Velmora Ironworks?", "Where is Ada Quill from?", None]


def test_a_question_that_needs_no_follow_up_is_answered_in_one_generation() -> None:
    llm = ScriptedLLM([" No.\nSo the final answer is: Ada Quill"])
    result, steps = run(SelfAskConfig(), llm)
    assert result.text == "Ada Quill" and len(llm.prompts) == 1
    assert [s.kind for s in steps] == ["retrieve", "reason", "extract"]


def test_without_a_final_answer_the_loop_writes_its_line_and_the_model_completes_it() -> None:
    llm = ScriptedLLM([" No.\nThe founder was from Tarsk.", " Tarsk\nQuestion: more"])
    result, steps = run(SelfAskConfig(), llm)
    assert llm.prompts[1].endswith("The founder was from Tarsk.\nSo the final answer is:")
    assert result.text == "Tarsk" and result.metadata.forced_final == "no_final_answer"
    assert steps[-1].payload(SelfAskRead).reason == "no_final_answer"


def test_the_follow_up_limit_leaves_the_unanswered_one_out_and_asks_for_the_answer() -> None:
    endless = " Yes.\nFollow up: Who founded Velmora Ironworks?\nIntermediate answer: Ada Quill.\nFollow up: Why?"
    llm = ScriptedLLM(lambda prompt: "Tarsk" if prompt.endswith("So the final answer is:") else model(endless)(prompt))
    result, steps = run(SelfAskConfig(max_follow_ups=1), llm)
    assert result.text == "Tarsk" and result.metadata.forced_final == "follow_up_limit"
    assert len(llm.prompts) == 3 and "Follow up: Why?" not in llm.prompts[-1]
    assert llm.prompts[-1].endswith("Intermediate answer: Ada Quill.\nSo the final answer is:")
    assert len([s for s in steps if s.kind == "retrieve"]) == 2  # the question and the one follow-up


def test_the_question_is_not_retrieved_for_when_told_not_to() -> None:
    llm = ScriptedLLM(model(TRAJECTORY))
    _, steps = run(SelfAskConfig(k=1, retrieve_question=False), llm)
    assert "Wikipedia Title" not in llm.prompts[0]
    assert [s.payload(SelfAskRetrieve).follow_up for s in steps if s.kind == "retrieve"] == [1, 2]


def test_the_oldest_paragraphs_leave_the_prompt_when_the_context_is_full() -> None:
    roomy = ScriptedLLM(model(TRAJECTORY))
    run(SelfAskConfig(k=1, max_tokens=60), roomy)
    last_prompt_words = len(roomy.prompts[-1].split())
    llm = ScriptedLLM(model(TRAJECTORY), context_length=last_prompt_words + 60 - 3)  # 3 words short
    _, steps = run(SelfAskConfig(k=1, max_tokens=60), llm)
    shown = [s.paragraph_ids for s in steps if s.kind == "reason"]
    assert shown[0] == (0,) and shown[-1] == (1,)  # the company's page left, Ada Quill's stayed
    assert "Wikipedia Title: Velmora Ironworks" not in llm.prompts[-1]


def test_a_prompt_that_does_not_fit_even_without_paragraphs_is_an_error_naming_the_sizes() -> None:
    from hopkit.errors import LLMError

    with pytest.raises(LLMError, match="tokens"):
        run(SelfAskConfig(), ScriptedLLM(model(TRAJECTORY), context_length=50))


@pytest.mark.parametrize("field", ["k", "max_follow_ups", "max_tokens"])
def test_a_count_below_one_is_refused_naming_the_option(field: str) -> None:
    with pytest.raises(ConfigError, match=f"'{field}'"):
        SelfAskConfig(**{field: 0})


def test_the_entry_names_k_as_top_k() -> None:
    assert METHOD.top_k == "k" and METHOD.name == "self-ask"


def test_the_demonstrations_keep_the_notebooks_trailing_spaces_unless_pinned_off() -> None:
    """The notebook (as every copy of it reads) ends twelve demonstration lines with a space: 'Muhammad Ali ',
    'Joseph Ball ' and every line of the fourth but its last (issue 71); ``trailing_spaces: false`` is the
    stripped copy the saved runs used, and leaves the run identity as it was."""
    from hopkit.options import run_options

    llm = ScriptedLLM(model(TRAJECTORY))
    run(SelfAskConfig(k=1), llm)
    demonstrations = llm.prompts[0].split("\n\nWikipedia Title:")[0]
    assert "So the final answer is: Muhammad Ali \n" in demonstrations and "Joseph Ball \n" in demonstrations
    assert "Intermediate Answer: New Zealand. \nSo the final answer is: No" in demonstrations
    assert sum(line.endswith(" ") for line in demonstrations.split("\n")) == 12
    stripped = ScriptedLLM(model(TRAJECTORY))
    run(SelfAskConfig(k=1, trailing_spaces=False), stripped)
    assert not any(line.endswith(" ") for line in stripped.prompts[0].split("\n"))
    assert "trailing_spaces" not in run_options(SelfAskConfig(trailing_spaces=False))
