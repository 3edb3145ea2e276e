"""ReAct as Shao et al. run it: Self-Ask's loop in their prompt, each follow-up's paragraphs written after
it as its observation; and the saved runs' form, Press et al.'s prompt with the question's paragraphs
before the question."""

from __future__ import annotations

import pytest

from hopkit.errors import ConfigError
from hopkit.llm.fake import ScriptedLLM
from hopkit.llm.meter import MeteredLLM
from hopkit.methods.react_shao import METHOD, ReActShao, ReActShaoConfig
from hopkit.methods.react_shao.prompts import INSTRUCTION, YES_OR_NO, prompt_head
from hopkit.methods.self_ask.steps import SelfAskAsk
from hopkit.records import Query
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.traces import collect_trace
from hopkit.usage import track_usage
from tests import fictional_corpus

pytestmark = pytest.mark.unit

CORPUS = list(fictional_corpus.paragraphs(3))
QUESTION = Query("q1", "Where was the founder of Velmora Ironworks born?", ("Tarsk",))
REPLIES = [" Yes.\nFollow up: Where is Ada Quill from?",
           " Ada Quill was from Tarsk.\nSo the final answer is: Tarsk"]


def test_shao_s_prompt_its_dataset_s_demonstrations_and_a_follow_up_s_paragraphs_after_it() -> None:
    """Table 18 (MuSiQue): the instruction, three demonstrations after '#' lines, then the question with
    nothing retrieved before it; the follow-up's paragraphs are its observation."""
    llm = ScriptedLLM(REPLIES)
    method = ReActShao(llm, BM25Retriever.build(CORPUS), ReActShaoConfig(k=1), dataset="musique")
    result = method.generate(QUESTION)
    first, second = llm.prompts
    assert first.startswith(f"{INSTRUCTION}\n#\nQuestion: In which year did the publisher of In Cold Blood form?\n"
                            "Are follow up questions needed here: Yes.\nFollow up: What business published In Cold "
                            "Blood?\nIntermediate answer: In Cold Blood was published in book form by Random House.\n")
    assert first.endswith("So the final answer is: eastern tip\n#\nQuestion: Where was the founder of Velmora "
                          "Ironworks born?\nAre follow up questions needed here:")
    assert first.count("\n#\n") == 4 and "Wikipedia Title" not in first  # three demonstrations, then the question
    assert second.endswith("Follow up: Where is Ada Quill from?\nWikipedia Title: Ada Quill\n"
                           "Ada Quill was an engineer from the port of Tarsk.\nIntermediate answer:")
    assert result.text == "Tarsk" and result.chunk_ids == (1,)  # only the follow-up retrieved
    assert "\n#" in method.ask_stop()


def test_shao_s_prompt_is_chosen_by_the_dataset() -> None:
    assert prompt_head("strategyqa").startswith(f"{INSTRUCTION} {YES_OR_NO}\n#\nQuestion: Is it common to see frost")
    assert prompt_head("2wikimultihopqa").count("Follow up:") == 8
    assert prompt_head("iirc") == prompt_head(None) == prompt_head("hotpotqa")
    assert "Question: Remember Me Ballin’ is a CD single" in prompt_head("HotpotQA")


def test_the_saved_runs_form_puts_the_question_s_paragraphs_before_it() -> None:
    llm = ScriptedLLM(REPLIES)
    with collect_trace() as trace:
        config = ReActShaoConfig(k=1, prompt="press", retrieve_question=True)
        result = ReActShao(llm, BM25Retriever.build(CORPUS), config).generate(QUESTION)
    assert result.text == "Tarsk" and result.chunk_ids == (0, 1)
    second = llm.prompts[1]
    question_at = second.index(f"Question: {QUESTION.text}")
    assert second.index("Wikipedia Title: Velmora Ironworks") < question_at  # the question's, before it
    assert second.endswith("Follow up: Where is Ada Quill from?\nWikipedia Title: Ada Quill\n"
                           "Ada Quill was an engineer from the port of Tarsk.\nIntermediate answer:")
    assert second.count("Wikipedia Title: Ada Quill") == 1
    asks = [s for s in trace.steps if s.kind == "reason"]
    assert [s.paragraph_ids for s in asks] == [(0,), (0, 1)]
    assert asks[0].payload(SelfAskAsk).follow_up == "Where is Ada Quill from?"


def test_its_model_calls_are_under_its_own_label() -> None:
    with track_usage() as usage:
        ReActShao(MeteredLLM(ScriptedLLM(REPLIES)), BM25Retriever.build(CORPUS)).generate(QUESTION)
    assert {name for name, entry in usage.components.items() if entry.llm_calls} == {"react-shao:ask"}


def test_options_are_refused_under_its_own_name() -> None:
    with pytest.raises(ConfigError, match="ReAct \\(Shao et al.\\) option 'k'"):
        ReActShaoConfig(k=0)
    assert METHOD.name == "react-shao" and METHOD.top_k == "k"
