"""Search-o1's loop with a retriever: the query at the end of a generation is searched, the documents
are condensed by Reason-in-Documents (its own prompt and call), the information goes back into the
reasoning between the result markers, and the answer is the last \\boxed{...}."""

from __future__ import annotations

import pytest

from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.search_o1 import SearchO1, SearchO1Config
from hopkit.methods.search_o1.prompts import multiqa_instruction
from hopkit.methods.search_o1.reading import boxed_answer, found_information, last_query, reasoning_for_documents
from hopkit.methods.search_o1.steps import SearchO1Answer, SearchO1Condense, SearchO1Reason
from hopkit.records import Query
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.traces import collect_trace
from tests import fictional_corpus
from tests.chained import assert_chained

pytestmark = pytest.mark.unit

CORPUS = list(fictional_corpus.paragraphs(3))
QUESTION = Query("q1", "Where was the founder of Velmora Ironworks born?", ("Tarsk",))


def model(reasoning: list[str], found: list[str]):
    """Reasoning generations in order; each Reason-in-Documents call answers with the next finding."""
    turns, findings = iter(reasoning), iter(found)

    def reply(prompt: str) -> str:
        if prompt.startswith("**Task Instruction:**"):
            return f"The pages say so.\n**Final Information**\n\n{next(findings)}"
        return next(turns)
    return reply


def run(llm: ScriptedLLM, **options) -> tuple:
    with collect_trace() as trace:
        result = SearchO1(llm, BM25Retriever.build(CORPUS), SearchO1Config(**options)).generate(QUESTION)
    assert_chained(trace.steps)  # each step follows the one before (parent=PREVIOUS)
    return result, trace.steps


def test_each_query_is_searched_condensed_and_written_back_until_the_boxed_answer() -> None:
    llm = ScriptedLLM(model(["I need the founder. <|begin_search_query|>Velmora Ironworks founder<|end_search_query|>",
                             "Now her birthplace. <|begin_search_query|>Ada Quill<|end_search_query|>",
                             "So the answer is \\boxed{Tarsk}."],
                            ["Ada Quill founded Velmora Ironworks.", "Ada Quill is from Tarsk."]))
    result, steps = run(llm, k=2)
    assert result.text == "Tarsk" and result.metadata.forced is None
    assert result.metadata.queries == ("Velmora Ironworks founder", "Ada Quill")
    assert [s.kind for s in steps] == ["reason", "retrieve", "read", "reason", "retrieve", "read", "reason", "extract"]
    assert len(llm.prompts) == 5  # three generations, two Reason-in-Documents calls
    assert llm.prompts[0].startswith(multiqa_instruction(10)) and llm.prompts[0].endswith(
        f"Question:\n{QUESTION.text}\n\n")
    condense = llm.prompts[1]
    assert condense.startswith("**Task Instruction:**") and "Step 1: I need the founder." in condense
    assert "**Web Page 1:**\n{\n  \"id\": 1,\n  \"title\": \"Velmora Ironworks\",\n  \"context\": " in condense
    assert llm.prompts[2].endswith("<|end_search_query|>\n\n<|begin_search_result|>Ada Quill founded Velmora "
                                   "Ironworks.<|end_search_result|>\n\n")
    assert steps[2].payload(SearchO1Condense).information == "Ada Quill founded Velmora Ironworks."


def test_without_document_id_a_page_is_its_title_and_context() -> None:
    """The saved runs' layout (document_id false): the authors' JSON without its opening "id"."""
    llm = ScriptedLLM(model(["<|begin_search_query|>Velmora Ironworks founder<|end_search_query|>",
                             "So the answer is \\boxed{Ada Quill}."], ["Ada Quill founded Velmora Ironworks."]))
    run(llm, k=2, document_id=False)
    assert "**Web Page 1:**\n{\n  \"title\": \"Velmora Ironworks\"" in llm.prompts[1]


def test_a_repeated_query_and_one_past_the_limit_are_answered_by_the_loop_not_searched() -> None:
    def search(query: str) -> str:
        return f"<|begin_search_query|>{query}<|end_search_query|>"
    llm = ScriptedLLM(model([search("Velmora"), search("Velmora"), search("Tarsk"), search("Grey Sea"),
                             "\\boxed{Tarsk}"], ["Velmora was founded by Ada Quill.", "Tarsk is a port."]))
    result, steps = run(llm, max_searches=2)
    outcomes = [s.payload(SearchO1Reason).outcome for s in steps if s.kind == "reason"]
    assert outcomes == ["searched", "repeated", "searched", "limit", "none"]
    assert llm.prompts[3].endswith("You have searched this query. Please refer to previous results.\n"
                                   "<|end_search_result|>\n") and "maximum search limit is exceeded" in llm.prompts[6]
    assert result.metadata.queries == ("Velmora", "Tarsk") and result.text == "Tarsk"


def test_a_model_that_never_stops_searching_ends_at_the_turn_limit_with_a_forced_answer() -> None:
    llm = ScriptedLLM(lambda prompt: "Tarsk" if prompt.endswith("\\boxed{") else
                      ("Found." if prompt.startswith("**Task") else "<|begin_search_query|>x<|end_search_query|>"))
    result, steps = run(llm, max_turns=4, max_searches=2)
    assert len([s for s in steps if s.kind == "reason"]) == 4
    answer = steps[-1].payload(SearchO1Answer)
    assert answer.forced == "turn_limit" and result.text == "Tarsk"
    assert [s.payload(SearchO1Reason).outcome for s in steps if s.kind == "reason"] == ["searched"] + ["repeated"] * 3
    assert len(llm.prompts) == 4 + 1 + 1  # the generations, one Reason-in-Documents, the forced answer


def test_reasoning_that_ends_without_a_boxed_answer_gets_one_forced() -> None:
    llm = ScriptedLLM(["I think the answer is Tarsk.", "Tarsk"])
    result, steps = run(llm)
    assert result.text == "Tarsk" and result.metadata.forced == "no_boxed_answer"
    assert llm.prompts[1].endswith("**Final Answer**\n\n\\boxed{")


@pytest.mark.parametrize("generation, query", [
    ("<|begin_search_query|>a<|end_search_query|>", "a"),
    ("<|begin_search_query|>a<|end_search_query|> and more", None),       # the generation does not end there
    ("<|begin_search_query|> <|begin_search_query|>b<|end_search_query|>", "b"),
    ("<|begin_search_query|>   <|end_search_query|>", None),
    ("<|end_search_query|>", None),
])
def test_the_query_is_read_defensively(generation: str, query: str | None) -> None:
    assert last_query(generation) == query


def test_reason_in_documents_output_and_the_boxed_answer_are_read_as_the_authors_read_them() -> None:
    assert found_information("blah\n**Final Information**\n\nAda\nQuill\n") == "AdaQuill"
    assert found_information("nothing useful") == "No helpful information found."
    assert found_information("**Final Information**\n\nTarsk is a port.") == "Tarsk is a port."
    assert boxed_answer("x \\boxed{A} then \\boxed{\\text{(Tarsk)}}") == "Tarsk"
    assert boxed_answer("no box") is None and boxed_answer("\\boxed{}") is None


def test_the_reasoning_shown_to_reason_in_documents_keeps_the_first_the_last_four_and_the_searches() -> None:
    output = "\n".join(f"line {n}" for n in range(1, 10)) + "\n<|begin_search_query|>q<|end_search_query|>"
    shown = reasoning_for_documents(output)
    assert shown.startswith("Step 1: line 1\n\n...\n\n") and "Step 10: <|begin_search_query|>q" in shown
    assert "Step 3: line 3" not in shown and shown.count("...") == 1
    assert reasoning_for_documents("one\ntwo") == "Step 1: one\n\nStep 2: two"
