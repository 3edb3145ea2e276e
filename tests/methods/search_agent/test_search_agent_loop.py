"""The search agents' loop (Search-R1 and its family): search between the family's tags, documents
written back into the model's turn in the family's layout, the answer between its answer tags, and
a bounded number of calls whatever the model writes."""

from __future__ import annotations

import pytest

from hopkit.llm.fake import ScriptedLLM, chat_prompt
from hopkit.llm.protocol import ChatMessage
from hopkit.methods.search_agent import METHOD, SearchAgent, SearchAgentConfig
from hopkit.methods.search_agent.steps import SearchAgentRead, SearchAgentRetrieve, SearchAgentTurn
from hopkit.methods.search_agent.templates import load_template
from hopkit.records import Query
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.traces import collect_trace
from tests import fictional_corpus
from tests.chained import assert_chained

pytestmark = pytest.mark.unit

CORPUS = list(fictional_corpus.paragraphs(3))
QUESTION = Query("q1", "Where was the founder of Velmora Ironworks born", ("Tarsk",))
SEARCH_R1 = ["<think> I need the founder. </think>\n<search> Velmora Ironworks founder </search>",
             "<think> Ada Quill founded it. </think>\n<search> Ada Quill </search>",
             "<think> She is from Tarsk. </think>\n<answer> Tarsk </answer>"]


def run(llm: ScriptedLLM, **options) -> tuple:
    with collect_trace() as trace:
        result = SearchAgent(llm, BM25Retriever.build(CORPUS), SearchAgentConfig(**options)).generate(QUESTION)
    assert_chained(trace.steps)  # each step follows the one before (parent=PREVIOUS)
    return result, trace.steps


def test_search_r1_searches_reads_its_information_and_answers_in_its_tags() -> None:
    llm = ScriptedLLM(SEARCH_R1, chat=True)
    result, steps = run(llm, k=1)
    assert result.text == "Tarsk" and result.metadata.forced is None
    assert result.metadata.queries == ("Velmora Ironworks founder", "Ada Quill")
    assert [s.kind for s in steps] == ["reason", "retrieve", "reason", "retrieve", "reason", "extract"]
    assert len(llm.prompts) == 3
    instruction = load_template("search-r1").prompt(QUESTION.text)
    assert instruction.endswith("Question: Where was the founder of Velmora Ironworks born?\n")  # "?" added
    # the instruction is the user's turn; the model's own turn goes on with the documents written into it
    assert llm.prompts[0] == chat_prompt([ChatMessage("user", instruction)])
    assert llm.prompts[1].startswith(chat_prompt([ChatMessage("user", instruction)]))
    # the title in the quotes of the authors' corpus ('"Title"' on a passage's first line)
    assert llm.prompts[1].endswith("<search> Velmora Ironworks founder </search>\n\n<information>Doc 1(Title: "
                                   "\"Velmora Ironworks\") Velmora Ironworks was founded by Ada Quill in 1871."
                                   "</information>\n\n")
    assert result.chunk_ids == (0, 1)
    assert result.metadata.transcript.endswith("<answer> Tarsk </answer>")


def test_without_title_quotes_a_title_is_shown_bare_as_the_saved_cells_ran() -> None:
    llm = ScriptedLLM(SEARCH_R1, chat=True)
    run(llm, k=1, title_quotes=False)
    assert "<information>Doc 1(Title: Velmora Ironworks) Velmora Ironworks was founded" in llm.prompts[1]


def test_r1_searcher_uses_its_own_tags_plain_prompt_and_numbered_documents() -> None:
    llm = ScriptedLLM(["I should look it up. <|begin_of_query|> \"Velmora\tIronworks\" founder... <|end_of_query|>",
                       "So it was Ada Quill. <answer>Ada Quill</answer>"], chat=True)
    result, steps = run(llm, template="r1-searcher")
    assert result.text == "Ada Quill"
    assert result.metadata.queries == ("Velmora Ironworks founder",)  # quotes, tabs and "..." removed
    first, second = llm.prompts
    assert first.startswith("The User asks a question") and first.endswith(
        "User:Where was the founder of Velmora Ironworks born\nAssistant: <think>")  # no chat template, no "?"
    assert second.endswith("founder...<|end_of_query|>\n\n<|begin_of_documents|>\n(1)Velmora Ironworks\n"
                           "Velmora Ironworks was founded by Ada Quill in 1871.\n<|end_of_documents|>\n\n")
    assert next(s for s in steps if s.kind == "retrieve").payload(SearchAgentRetrieve).k == 5  # the family's top-5


def test_the_family_settings_fill_what_the_options_leave_out_and_the_options_win() -> None:
    assert METHOD.as_run(SearchAgentConfig()) == SearchAgentConfig(k=3, max_turns=4, max_tokens=500)
    assert METHOD.as_run(SearchAgentConfig(template="r1-searcher"), top_k=2) == SearchAgentConfig(
        template="r1-searcher", k=2, max_turns=9, max_tokens=512)


def test_a_model_that_never_stops_searching_ends_after_the_turns_with_a_forced_answer() -> None:
    llm = ScriptedLLM(lambda prompt: "<answer>" in prompt.splitlines()[-1] and "Tarsk" or
                      "<search> Velmora </search>", chat=True)
    result, steps = run(llm, max_turns=3)
    assert len(llm.prompts) == 3 + 1 + 1  # 3 searching turns, the turn that runs no search, the forced answer
    assert result.metadata.queries == ("Velmora",) * 3 and result.metadata.forced == "turn_limit"
    assert result.text == "Tarsk"
    read = steps[-1].payload(SearchAgentRead)
    assert read.reason == "turn_limit"
    assert [s.payload(SearchAgentTurn).searching for s in steps if s.kind == "reason"] == [True, True, True, False]


def test_output_without_the_templates_tags_gets_the_invalid_action_message_and_stays_bounded() -> None:
    """A checkpoint run with another family's template writes tags this one does not know."""
    llm = ScriptedLLM(lambda prompt: "<answer>" in prompt.splitlines()[-1] and "Tarsk" or
                      "<|begin_of_query|> Velmora <|end_of_query|>", chat=True)
    result, steps = run(llm, max_turns=2)
    assert len(llm.prompts) == 2 + 1 + 1
    assert llm.prompts[1].count("My previous action is invalid.") == 1
    assert [s.payload(SearchAgentTurn).action for s in steps if s.kind == "reason"] == ["none"] * 3
    assert result.metadata.queries == () and result.text == "Tarsk"


def test_a_family_that_ends_on_a_generation_without_action_does_so_at_once() -> None:
    llm = ScriptedLLM(["I think it is Tarsk.", "Tarsk"])
    result, _ = run(llm, template="r1-searcher")
    assert len(llm.prompts) == 2 and result.metadata.forced == "no_action" and result.text == "Tarsk"


@pytest.mark.parametrize("reply, action, query", [
    ("<search> a <search> b </search>", "search", "b"),                 # nested: the last one opened
    ("<search> x </answer>", "search", "x"),  # the stop strings are cut off: the tag opened last decides
    ("<answer> Tarsk", "answer", None),                                # stopped at the closing tag (removed)
    ("<search>    </search>", "none", None),                           # an empty query is no search
    ("</search> <search>", "none", None),                              # a close before any open
])
def test_unclosed_nested_and_mismatched_tags_are_read_defensively(reply: str, action: str, query: str | None) -> None:
    llm = ScriptedLLM([reply, "Tarsk", "Tarsk", "Tarsk", "Tarsk", "Tarsk", "Tarsk"], chat=True)
    _, steps = run(llm, max_turns=1)
    first = steps[0].payload(SearchAgentTurn)
    assert (first.action, first.query) == (action, query)


def test_a_generation_cut_by_the_token_budget_inside_a_tag_is_no_action() -> None:
    llm = ScriptedLLM(["<search> Velmora " + "word " * 50, "Tarsk", "Tarsk"], chat=True)
    _, steps = run(llm, max_turns=1, max_tokens=10)
    assert steps[0].payload(SearchAgentTurn).action == "none"


def test_a_query_of_100_kb_is_cut_to_the_limit_and_said_so() -> None:
    llm = ScriptedLLM(["<search> " + "Velmora " * 13_000 + "</search>", "<answer> Tarsk </answer>"], chat=True,
                      context_length=100_000)
    result, steps = run(llm, max_query_chars=200, max_tokens=20_000)
    search = next(s for s in steps if s.kind == "retrieve").payload(SearchAgentRetrieve)
    assert search.cut and len(search.query) <= 200 and result.text == "Tarsk"


def test_with_the_forced_answer_off_a_question_without_answer_has_an_empty_one() -> None:
    llm = ScriptedLLM(["I do not know."] * 10, chat=True)
    result, _ = run(llm, max_turns=2, force_answer=False)
    assert result.text == "" and len(llm.prompts) == 3


def test_braces_in_a_question_or_a_document_are_text_not_placeholders() -> None:
    template = load_template("search-r1")
    assert template.prompt("What is {documents}?").endswith("Question: What is {documents}?\n")
    assert "{question}" in template.documents_block([("{question}", "{number}")])
