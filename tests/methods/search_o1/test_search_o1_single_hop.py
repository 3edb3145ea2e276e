"""Search-o1 on a single-hop dataset: the authors' single-QA instruction and 5 searches, as their
``run_search_o1.py`` gives NQ and TriviaQA (l. 199-204, 332-336); chosen by the dataset the run answers,
with an option to override, and without changing the multi-hop runs' identity."""

from __future__ import annotations

import pytest

from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.registry import MethodParts
from hopkit.methods.search_o1 import METHOD, SearchO1Config
from hopkit.methods.search_o1.prompts import LIMIT_EXCEEDED, multiqa_instruction, singleqa_instruction
from hopkit.options import run_options
from hopkit.records import Query
from hopkit.retrieval.bm25 import BM25Retriever
from tests import fictional_corpus

pytestmark = pytest.mark.unit

QUESTION = Query("q1", "Where was the founder of Velmora Ironworks born?", ("Tarsk",))
# scripts/prompts.py get_singleqa_search_o1_instruction(5) at sunnynexus/Search-o1 6ced48f, verbatim
AUTHORS_SINGLEQA_5 = (
    "You are a reasoning assistant with the ability to perform web searches to help you answer the user's question "
    "accurately. You have special tools:\n\n"
    "- To perform a search: write <|begin_search_query|> your query here <|end_search_query|>.\n"
    "Then, the system will search and analyze relevant web pages, then provide you with helpful information in the "
    "format <|begin_search_result|> ...search results... <|end_search_result|>.\n\n"
    "You can repeat the search process multiple times if necessary. The maximum number of search attempts is "
    "limited to 5.\n\n"
    "Once you have all the information you need, continue your reasoning.\n\n"
    "Example:\n"
    "Question: \"Who got the first Nobel Prize in Physics?\"\n"
    "Assistant thinking steps:\n"
    "- I need to find out who was awarded the first Nobel Prize in Physics.\n\n"
    "Assistant:\n"
    "<|begin_search_query|>first Nobel Prize in Physics winner<|end_search_query|>\n\n"
    "(System returns processed information from relevant web pages)\n\n"
    "Assistant continues reasoning with the new information...\n\n"
    "Remember:\n"
    "- Use <|begin_search_query|> to request a web search and end with <|end_search_query|>.\n"
    "- When done searching, continue your reasoning.\n\n")


def searching_model(prompt: str) -> str:
    """A model that searches a new query every turn; Reason-in-Documents finds nothing."""
    if prompt.startswith("**Task Instruction:**"):
        return "**Final Information**\n\nNo helpful information found."
    return f"<|begin_search_query|>query {prompt.count('<|begin_search_result|>')}<|end_search_query|>"


def answer(dataset: str | None, **options) -> ScriptedLLM:
    llm = ScriptedLLM(searching_model)
    method = METHOD.build(MethodParts(llm, BM25Retriever.build(list(fictional_corpus.paragraphs(3))),
                                      SearchO1Config(k=1, max_turns=7, **options), dataset))
    method.generate(QUESTION)
    return llm


def test_the_single_qa_instruction_is_the_authors() -> None:
    assert singleqa_instruction(5) == AUTHORS_SINGLEQA_5


@pytest.mark.parametrize("dataset", ["nq", "triviaqa", "popqa", "TriviaQA"])
def test_a_single_hop_dataset_gets_the_single_qa_instruction_and_5_searches(dataset: str) -> None:
    llm = answer(dataset)
    assert llm.prompts[0].startswith(AUTHORS_SINGLEQA_5)
    reasoning = [prompt for prompt in llm.prompts if not prompt.startswith("**Task Instruction:**")]
    assert len(llm.prompts) - len(reasoning) == 5  # five searches condensed, then the limit
    assert reasoning[-1].count(LIMIT_EXCEEDED) == 2  # turns 6 and 7 (the last prompt: the forced answer)


@pytest.mark.parametrize("dataset", ["hotpotqa", "2wikimultihopqa", "musique", None])
def test_a_multi_hop_dataset_or_a_free_question_keeps_the_multi_hop_instruction(dataset: str | None) -> None:
    llm = answer(dataset)
    assert llm.prompts[0].startswith(multiqa_instruction(10))
    assert LIMIT_EXCEEDED not in "".join(llm.prompts)  # 7 turns, under the 10 searches


def test_the_option_overrides_the_datasets_kind() -> None:
    assert answer("nq", single_hop=False).prompts[0].startswith(multiqa_instruction(10))
    assert answer("hotpotqa", single_hop=True, single_hop_searches=3).prompts[0].startswith(singleqa_instruction(3))


def test_the_new_options_count_toward_a_runs_identity_only_when_set() -> None:
    assert set(run_options(SearchO1Config())) == {"k", "max_searches", "max_turns", "max_tokens", "condense_tokens",
                                                  "max_doc_chars", "answer_tokens", "document_id"}
    assert "document_id" not in run_options(SearchO1Config(document_id=False))  # the saved runs' value
    assert run_options(SearchO1Config(single_hop=True))["single_hop"] is True
    assert run_options(SearchO1Config(single_hop_searches=4))["single_hop_searches"] == 4
