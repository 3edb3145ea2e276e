"""ReAct as Shao et al. run it: Self-Ask's loop, each follow-up's paragraphs written after it as its
observation, the question's before the question."""

from __future__ import annotations

import pytest

from hopkit.errors import ConfigError
from hopkit.llm.fake import ScriptedLLM
from hopkit.llm.meter import MeteredLLM
from hopkit.methods.react_shao import METHOD, ReActShao, ReActShaoConfig
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


def test_a_follow_up_s_paragraphs_are_its_observation_in_the_transcript() -> None:
    llm = ScriptedLLM(REPLIES)
    with collect_trace() as trace:
        result = ReActShao(llm, BM25Retriever.build(CORPUS), ReActShaoConfig(k=1)).generate(QUESTION)
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
