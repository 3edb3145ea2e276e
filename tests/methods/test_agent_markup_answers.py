"""One rule for every agent's answer: an answer that is only the agents' markup is no answer (issue 70).

The probe found R1-Searcher and Search-o1 storing raw ``<search>...</search>`` markup (up to 100 KB) as
the answer, and Search-R1 and AutoRefine storing ``<think>I need to search`` from a tag left open, where
every other method fails such a question with ``EmptyAnswerError``. Every agent now reads its answer
through :func:`hopkit.methods.agent_turn.agent_answer`: the markup goes (an element of the agents' own
tags with its content, a tag left open with the rest of the text, any other tag alone), and an answer
with nothing left fails its question with the error every method's empty answer gets. The agents run
through the runner into a real SQLite store with the real BM25 index; the model is scripted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from hopkit.llm.fake import ScriptedLLM
from hopkit.llm.meter import MeteredLLM
from hopkit.methods.agent_turn import agent_answer
from hopkit.methods.react import ReAct, ReActConfig
from hopkit.methods.search_agent import SearchAgent, SearchAgentConfig
from hopkit.methods.search_o1 import SearchO1, SearchO1Config
from hopkit.records import Corpus
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.pipelines.runner import run_method
from hopkit.store.connection import DBConnection
from hopkit.store.records import RunSpec
from hopkit.store.store import Store
from tests.methods.test_method_contract import PARAGRAPHS, QUERIES

pytestmark = pytest.mark.unit

SEARCH_MARKUP = "<search> " + "Velmora Ironworks founder " * 4000 + "</search>"  # 100 KB of a search


@pytest.mark.parametrize("text, answer", [
    ("Tarsk", "Tarsk"),
    (" Ada <i>Quill</i> ", "Ada Quill"),                               # a tag not of the agents' markup goes alone
    ("<answer> Tarsk </answer>", "Tarsk"),
    ("Tarsk <search> Velmora </search>", "Tarsk"),
    ("<think> She is from Tarsk. </think> Tarsk", "Tarsk"),
    ("Tarsk\n<think>I should check", "Tarsk"),                         # left open: the rest goes with it
    (SEARCH_MARKUP, ""),
    ("<think>I need to search", ""),
    ("<|begin_search_query|> Velmora <|end_search_query|>", ""),
    ("<|begin_of_query|> Velmora", ""),
    ("<information>Doc 1(Title: Tarsk) a port</information> </answer>", ""),
    ("<|im_end|>", ""),
    ("</think> .", ""),
])
def test_the_agents_answer_rule(text: str, answer: str) -> None:
    assert agent_answer(text) == answer


def test_a_templates_own_tags_count_as_markup_too() -> None:
    assert agent_answer("[Q] Velmora [/Q] Tarsk", (("[Q]", "[/Q]"),)) == "Tarsk"
    assert agent_answer("[Q] Velmora", (("[Q]", "[/Q]"),)) == ""


def _search_agent(template: str, **options: int) -> Callable[[ScriptedLLM], object]:
    return lambda llm: SearchAgent(llm, BM25Retriever.build(PARAGRAPHS), SearchAgentConfig(template=template,
                                                                                           **options))


# What each agent's model writes for its answer: only markup.
AGENTS: dict[str, tuple[Callable[[ScriptedLLM], object], Callable[[str], str]]] = {
    "r1-searcher": (_search_agent("r1-searcher", max_tokens=20_000),  # room for the 100 KB the probe saw
                    lambda prompt: f"Let me answer. <answer>{SEARCH_MARKUP}</answer>"),
    "search-r1": (_search_agent("search-r1"),
                  lambda prompt: "<think>I need to search" if prompt.rstrip().endswith("<answer>")
                  else "I am not sure."),
    "autorefine": (_search_agent("autorefine"),
                   lambda prompt: "<think>I need to search" if prompt.rstrip().endswith("<answer>") else "Hmm."),
    "search-o1": (lambda llm: SearchO1(llm, BM25Retriever.build(PARAGRAPHS), SearchO1Config(max_tokens=20_000)),
                  lambda prompt: f"So the answer is \\boxed{{{SEARCH_MARKUP}}}"),
    "search-o1-forced": (lambda llm: SearchO1(llm, BM25Retriever.build(PARAGRAPHS)),
                         lambda prompt: "<|begin_search_query|> Velmora" if prompt.endswith("\\boxed{")
                         else "I will think about it."),
    "react": (lambda llm: ReAct(llm, BM25Retriever.build(PARAGRAPHS), ReActConfig()),
              lambda prompt: "I know it.\nAction 1: Finish[<search>Velmora Ironworks</search>]"),
}


@pytest.mark.parametrize("agent", list(AGENTS))
def test_an_agent_answer_of_only_markup_is_a_failed_question(tmp_path: Path, agent: str) -> None:
    build, reply = AGENTS[agent]
    store = Store(DBConnection(f"sqlite:///{tmp_path / 'agents.db'}").get_session_factory())
    store.add_corpus(Corpus("toy", PARAGRAPHS, QUERIES))
    llm = ScriptedLLM(reply, chat=True, context_length=10**6)
    outcome = run_method(build(MeteredLLM(llm)), QUERIES, store,  # type: ignore[arg-type]
                         RunSpec(name=f"markup-{agent}", method="search-agent", dataset="toy", config={"a": agent}),
                         progress=False)
    assert (outcome.finished, outcome.failed) == (0, len(QUERIES))
    for result in store.results(outcome.run_id):
        assert result.error is not None and result.error.startswith("EmptyAnswerError"), (result.prediction[:200],
                                                                                           result.error)
        assert "<" not in result.prediction
