"""ReAct's loop (Yao et al., 2023; the authors' ``webthink``) over a real BM25 index: Thought /
Action / Observation turns in the authors' prompt, Search, Lookup and Finish, the re-prompt for a
missing action, invalid actions, and the empty answer when the turns run out."""

from __future__ import annotations

import re

import pytest

from hopkit.errors import ConfigError
from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.react import METHOD, ReAct, ReActConfig
from hopkit.methods.react.environment import PassageEnvironment, sentences_of
from hopkit.methods.react.prompts import INSTRUCTION, examples
from hopkit.methods.react.steps import ReActFinish, ReActInvalid, ReActLookup, ReActSearch, ReActThink
from hopkit.records import Paragraph, Query
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.traces import collect_trace
from tests.chained import assert_chained

pytestmark = pytest.mark.unit

CORPUS = [
    Paragraph(0, "Velmora Ironworks", "Velmora Ironworks is a foundry. It was founded by Ada Quill in 1871. "
                                      "The foundry closed in 1950."),
    Paragraph(1, "Ada Quill", "Ada Quill was an engineer. She was born in the port of Tarsk."),
    Paragraph(2, "Tarsk", "Tarsk is a port on the Orl River."),
]
QUESTION = Query("q1", "Where was the founder of Velmora Ironworks born?", ("Tarsk",))


def turns(*replies: str):
    """A model answering each turn's prompt with the reply of its number."""
    def reply(prompt: str) -> str:
        turn = re.search(r"Thought (\d+):$", prompt)
        return replies[int(turn.group(1)) - 1] if turn else "Finish[never]"
    return reply


def run(llm: ScriptedLLM, config: ReActConfig = ReActConfig()) -> tuple:
    with collect_trace() as trace:
        result = ReAct(llm, BM25Retriever.build(CORPUS), config).generate(QUESTION)
    assert_chained(trace.steps)  # each step follows the one before (parent=PREVIOUS)
    return result, trace.steps


def test_search_lookup_and_finish_make_the_authors_trajectory() -> None:
    llm = ScriptedLLM(turns(" I need to search Velmora Ironworks.\nAction 1: Search[Velmora Ironworks]",
                            " It names the founder. I need to search Ada Quill.\nAction 2: Search[Ada Quill]",
                            " I need to look up born.\nAction 3: Lookup[born]",
                            " She was born in Tarsk.\nAction 4: Finish[Tarsk]\nObservation 4: made up"))
    result, steps = run(llm)
    assert result.text == "Tarsk" and result.metadata.finished and result.metadata.turns == 4
    assert llm.prompts[0] == f"{INSTRUCTION}{examples()}Question: {QUESTION.text}\nThought 1:"
    last = llm.prompts[-1]
    assert ("Thought 1: I need to search Velmora Ironworks.\nAction 1: Search[Velmora Ironworks]\n"
            "Observation 1: Velmora Ironworks is a foundry. It was founded by Ada Quill in 1871. "
            "The foundry closed in 1950.\n") in last
    assert "Action 3: Lookup[born]\nObservation 3: (Result 1 / 1) She was born in the port of Tarsk.\n" in last
    assert last.endswith("Thought 4:")
    assert [s.kind for s in steps] == ["reason", "retrieve", "reason", "retrieve", "reason", "retrieve", "reason",
                                       "extract"]
    assert [type(s.payload(p)) for s, p in zip(steps, [ReActThink, ReActSearch])] == [ReActThink, ReActSearch]
    assert METHOD.payload(steps[5]) == steps[5].payload(ReActLookup) and steps[5].paragraph_ids == (1,)
    assert steps[-1].payload(ReActFinish).answer == "Tarsk"
    assert result.chunk_ids == (0, 1) and result.metadata.searches == ("Velmora Ironworks", "Ada Quill")


def test_a_generation_without_an_action_keeps_its_first_line_and_asks_for_the_action_alone() -> None:
    def reply(prompt: str) -> str:
        return " Finish[Tarsk]" if prompt.endswith("Action 1:") else " Ada Quill founded it.\nShe was from Tarsk."
    llm = ScriptedLLM(reply)
    result, steps = run(llm)
    assert llm.prompts[1].endswith("Thought 1: Ada Quill founded it.\nAction 1:")
    think = steps[0].payload(ReActThink)
    assert think.reprompted and think.action == "Finish[Tarsk]" and result.text == "Tarsk"
    assert len(llm.prompts) == 2


def test_an_invalid_action_is_observed_as_such_and_the_loop_goes_on() -> None:
    llm = ScriptedLLM(turns(" Hm.\nAction 1: Ask[someone]", " Then.\nAction 2: Finish[Tarsk]"))
    result, steps = run(llm)
    assert "Observation 1: Invalid action: Ask[someone]\n" in llm.prompts[1]
    assert steps[1].payload(ReActInvalid).action == "Ask[someone]" and result.text == "Tarsk"


def test_without_finish_the_turns_run_out_to_an_empty_answer() -> None:
    llm = ScriptedLLM(turns(*[f" Again.\nAction {n}: Search[Tarsk]" for n in range(1, 4)]))
    result, steps = run(llm, ReActConfig(max_turns=3))
    assert result.text == "" and not result.metadata.finished and len(llm.prompts) == 3
    assert steps[-1].payload(ReActFinish).out_of_turns


def test_lookup_walks_the_matching_sentences_of_the_last_search_then_says_no_more() -> None:
    environment = PassageEnvironment(BM25Retriever.build(CORPUS), k=1)
    assert environment.lookup("foundry") == ("No more results.\n", None)  # nothing searched yet
    environment.search("Velmora Ironworks")
    assert environment.lookup("FOUNDRY") == ("(Result 1 / 2) Velmora Ironworks is a foundry.", 0)
    assert environment.lookup("FOUNDRY") == ("(Result 2 / 2) The foundry closed in 1950.", 0)
    assert environment.lookup("FOUNDRY") == ("No more results.\n", None)
    assert environment.lookup("1871")[0] == "(Result 1 / 1) It was founded by Ada Quill in 1871."


def test_a_search_with_no_hit_could_not_find_and_shows_at_most_five_sentences() -> None:
    environment = PassageEnvironment(BM25Retriever.build(CORPUS), k=3)
    assert environment.search("zzz qqq") == ("Could not find zzz qqq.", [])
    observation, hits = environment.search("Velmora Ironworks foundry Ada Quill Tarsk")
    assert len(hits) == 3 and observation.count(".") == 5


def test_sentences_are_split_at_period_space_as_the_authors_do() -> None:
    sentences = sentences_of([Paragraph(7, "T", "A is b. C is d.\nE.")])
    assert sentences == [("A is b.", 7), ("C is d.", 7), ("E.", 7)]


@pytest.mark.parametrize("field", ["max_turns", "k", "max_tokens"])
def test_a_count_below_one_is_refused_naming_the_option(field: str) -> None:
    with pytest.raises(ConfigError, match=f"'{field}'"):
        ReActConfig(**{field: 0})


def test_the_defaults_are_the_authors() -> None:
    assert (ReActConfig().max_turns, ReActConfig().k) == (7, 1)
    assert examples().count("\nQuestion: ") == 6


def test_the_trajectories_are_the_authors_without_the_stray_t_unless_pinned() -> None:
    """prompts_naive.json's webthink_simple6 reads 'Observation 1: The Colorado orogeny'; hopkit's copy had
    'Observation 1T:' (issue 71), which only ``stray_t`` (the saved runs' value) brings back."""
    assert "\nObservation 1: The Colorado orogeny was" in examples() and "1T" not in examples()
    assert examples(stray_t=True) == examples().replace("Observation 1: The Colorado", "Observation 1T: The Colorado")
    llm = ScriptedLLM(turns(" Done.\nAction 1: Finish[Tarsk]"))
    run(llm)
    pinned = ScriptedLLM(turns(" Done.\nAction 1: Finish[Tarsk]"))
    run(pinned, ReActConfig(stray_t=True))
    assert "Observation 1T:" not in llm.prompts[0] and "Observation 1T: The Colorado" in pinned.prompts[0]


def test_a_lookup_with_nothing_left_leaves_a_blank_line_in_the_trajectory_as_wikienv_does() -> None:
    """wikienv.py observes 'No more results.\\n' and webthink adds its own newline after it."""
    replies = (" I need to look up foundry.\nAction 1: Lookup[foundry]", " Then.\nAction 2: Finish[Tarsk]")
    llm = ScriptedLLM(turns(*replies))
    _, steps = run(llm)
    assert "Action 1: Lookup[foundry]\nObservation 1: No more results.\n\nThought 2:" in llm.prompts[1]
    assert steps[1].payload(ReActLookup).observation == "No more results.\n"
    pinned = ScriptedLLM(turns(*replies))
    run(pinned, ReActConfig(lookup_end_newline=False))
    assert "Observation 1: No more results.\nThought 2:" in pinned.prompts[1]


def test_text_after_an_action_s_closing_bracket_is_dropped_not_taken_for_an_invalid_action() -> None:
    llm = ScriptedLLM(turns(" I need to search Ada Quill.\nAction 1: Search[Ada Quill] Thought 2: then Tarsk",
                            " She was born in Tarsk.\nAction 2: Finish[Tarsk] ```json"))
    result, steps = run(llm)
    assert result.text == "Tarsk" and result.metadata.finished and result.metadata.turns == 2
    assert "Action 1: Search[Ada Quill]\nObservation 1: Ada Quill was an engineer." in llm.prompts[-1]
    assert steps[0].payload(ReActThink).action == "Search[Ada Quill] Thought 2: then Tarsk"
    assert [s.kind for s in steps] == ["reason", "retrieve", "reason", "extract"]  # no invalid action between
