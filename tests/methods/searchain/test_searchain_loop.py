"""SearChain's loop (Algorithm 1) with a scripted model and reader on a real BM25 index."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hopkit.judges.lexical import LexicalSimilarity
from hopkit.judges.protocol import SpanAnswer
from hopkit.judges.scripted import ScriptedAnswer, ScriptedSimilarity
from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.searchain.method import SearChain, SearChainConfig
from hopkit.methods.searchain.prompts import COMPLETE_FEEDBACK, MULTIHOP_PROMPT, QUESTION_AT_THE_END
from hopkit.traces import Trace, collect_trace

pytestmark = pytest.mark.unit


def run(kit, script, reader=None, similarity=None, **options):
    llm = ScriptedLLM(script)
    reader = reader or ScriptedAnswer(kit.reading)
    method = SearChain(llm, kit.retriever, SearChainConfig(**options), reader=reader,
                       similarity=similarity or LexicalSimilarity())
    with collect_trace() as trace:
        result = method.generate(kit.QUESTION)
    return result, trace, llm, reader


def verdicts(trace: Trace) -> list[tuple[int, str]]:
    return [(step.extra["round"], step.output["verdict"]) for step in trace.steps if step.kind == "verify"]


def test_the_papers_worked_example(kit) -> None:
    """Figures 20 and 21: two corrections, one completion, then every node passes and tracing marks them."""
    result, trace, llm, reader = run(kit, kit.paper_script)
    assert result.text == "Toronto Coach Terminal"
    assert result.metadata["rounds"] == 4 and result.metadata["stop_reason"] == "finished"
    assert result.metadata["knowledge_sources"] == {"llm": 0, "corrected": 2, "completed": 1, "unsolved": 0}
    assert verdicts(trace) == [(1, "corrected"), (1, "not_reached"), (1, "not_reached"),
                               (2, "duplicate"), (2, "corrected"), (2, "not_reached"),
                               (3, "duplicate"), (3, "completed"),
                               (4, "duplicate"), (4, "duplicate"), (4, "duplicate")]
    assert result.chunk_ids == (kit.SPIRIT.id, kit.DREW.id, kit.TERMINAL.id)
    # one reading per processed node; only the first node needing feedback is read in round 1
    assert [call[0][0] for call in reader.calls] == [kit.Q1, kit.Q2, kit.Q3]
    # the feedback prompts, verbatim and in the paper's order (q, g, Q, d)
    question = kit.QUESTION.text
    assert (f"According to the Reference, the answer for {kit.Q1} should be Kevin Drew, you can change your answer "
            f"and continue constructing the reasoning chain for [Question]: {question}. Reference: Spirit If...: "
            f"{kit.SPIRIT.text.rstrip('.')}.") in llm.prompts[1]
    assert COMPLETE_FEEDBACK.format(query=kit.Q3, reader_answer="Toronto Coach Terminal", question=question,
                                    passage=f"Toronto Coach Terminal: {kit.TERMINAL.text.rstrip('.')}") in llm.prompts[3]


def test_each_round_extends_the_prompt_before_it(kit) -> None:
    _, _, llm, _ = run(kit, kit.paper_script)
    first = llm.prompts[0]
    fixed = MULTIHOP_PROMPT.format(question=QUESTION_AT_THE_END)
    assert first.startswith(fixed) and first.endswith(f'[Question]: "{kit.QUESTION.text}"\n[Query 1]:')
    for earlier, later in zip(llm.prompts, llm.prompts[1:]):
        assert later.startswith(earlier)
    assert llm.prompts[-1].endswith("[Final Content]:")


def test_the_question_can_sit_in_the_instruction_as_in_the_figures(kit) -> None:
    _, _, llm, _ = run(kit, kit.paper_script, question_in_instruction=True)
    assert llm.prompts[0].startswith(f'Construct a global reasoning chain for this complex [Question] : " '
                                     f'{kit.QUESTION.text} "')


def test_the_tree_keeps_each_branch_with_the_node_it_restarted_from(kit) -> None:
    _, trace, _, _ = run(kit, kit.paper_script)
    steps = {step.id: step for step in trace.steps}
    rounds = [step for step in trace.steps if step.kind == "reason"]
    assert [step.extra["round"] for step in rounds] == [1, 2, 3, 4]
    assert rounds[0].parent is None and rounds[0].input is None
    for before, after in zip(rounds, rounds[1:]):
        restart = steps[after.parent]
        assert restart.kind == "verify" and restart.extra["round"] == before.extra["round"]
        assert restart.extra["feedback"] == after.input
    assert rounds[1].output["nodes"][0]["answer"] == "Kevin Drew"
    assert rounds[0].extra["generation"].startswith("[Query 1]: ")


def test_final_content_marks_resolve_to_the_passages_of_the_correct_path(kit) -> None:
    result, trace, _, _ = run(kit, kit.paper_script)
    [read] = [step for step in trace.steps if step.kind == "read"]
    assert read.extra["pairs"] == [[kit.Q1, "Kevin Drew"], [kit.Q2, "Toronto"], [kit.Q3, "Toronto Coach Terminal"]]
    assert [(m["number"], m["paragraph_id"]) for m in read.extra["marks"]] == [(1, 1), (2, 2), (3, 3)]
    assert list(read.paragraph_ids) == [1, 2, 3]
    assert [(c.paragraph_ids, c.claim) for c in trace.citations] == [
        ((1,), "The performer of Spirit If... is Kevin Drew."), ((2,), "Kevin Drew was born in Toronto."),
        ((3,), "Greyhound buses in Toronto leave from Toronto Coach Terminal.")]
    assert read.extra["traced"].splitlines()[1:] == [f"[{p.id}] {p.title}: {p.text}"
                                                     for p in (kit.SPIRIT, kit.DREW, kit.TERMINAL)]
    assert result.metadata["traceability"] == {"marks": 3, "valid_marks": 3, "skc": 3}


def test_a_reader_not_confident_enough_keeps_the_models_answer(kit) -> None:
    chain = f" {kit.Q1}\n[Answer 1]: Casey Morton Cott\n[Final Content]: Casey Morton Cott [1]."
    reader = ScriptedAnswer(lambda q, p: SpanAnswer("Kevin Drew", 1.0))
    result, trace, llm, _ = run(kit, kit.rounds_script([chain], " So the answer is Casey Morton Cott [1]."),
                                reader=reader)
    assert verdicts(trace) == [(1, "kept")]
    assert result.metadata["knowledge_sources"]["llm"] == 1
    assert result.text == "Casey Morton Cott" and len(llm.prompts) == 2


def test_a_reader_answer_inside_the_models_answer_passes(kit) -> None:
    chain = f" {kit.Q1}\n[Answer 1]: The performer is Kevin Drew.\n[Final Content]: Kevin Drew [1]."
    result, trace, _, _ = run(kit, kit.rounds_script([chain]))
    assert verdicts(trace) == [(1, "kept")] and result.metadata["stop_reason"] == "finished"


def test_duplicates_by_normalised_text_and_by_the_similarity_judge(kit) -> None:
    first = f" {kit.Q1}\n[Answer 1]: Casey\n[Final Content]: x"
    second = ("[Query 1]: who is the PERFORMER of Spirit If... ?\n[Answer 1]: Kevin Drew\n"
              "[Query 2]: Spirit If... was performed by whom?\n[Answer 2]: Kevin Drew\n[Final Content]: Kevin Drew")
    similarity = ScriptedSimilarity({(kit.Q1, "Spirit If... was performed by whom?"): 0.95}, default=0.0)
    result, trace, _, reader = run(kit, kit.rounds_script([first, second]), similarity=similarity)
    assert verdicts(trace) == [(1, "corrected"), (2, "duplicate"), (2, "duplicate")]
    assert len(reader.calls) == 1
    # the normalised text matched without asking the judge; the paraphrase needed it
    assert [call[0] for call in similarity.calls] == ["Spirit If... was performed by whom?"]
    skipped = [step for step in trace.steps if step.kind == "verify" and step.output["verdict"] == "duplicate"]
    assert skipped[1].extra["similarity"] == 0.95 and skipped[0].extra["similarity"] == 1.0
    assert result.metadata["verdicts"] == {"corrected": 1, "duplicate": 2}


def test_max_rounds_ends_the_loop_with_the_last_correction_on_the_path(kit) -> None:
    chains = [f" {kit.Q1}\n[Answer 1]: Casey\n[Final Content]: Casey [1].",
              f"[Query 1]: {kit.Q2}\n[Answer 1]: Vancouver\n[Final Content]: Vancouver [1]."]
    result, trace, llm, _ = run(kit, kit.rounds_script(chains), max_rounds=2)
    assert result.metadata["stop_reason"] == "max_rounds" and result.metadata["rounds"] == 2
    assert len(llm.prompts) == 3  # two chains and the tracing call
    [read] = [step for step in trace.steps if step.kind == "read"]
    assert read.extra["pairs"] == [[kit.Q1, "Kevin Drew"], [kit.Q2, "Toronto"]]
    assert "should be Toronto" not in llm.prompts[-1]  # the last feedback is never sent


def test_without_verification_answers_are_kept_unread(kit) -> None:
    result, trace, _, reader = run(kit, kit.paper_script, verification=False)
    assert [v for _, v in verdicts(trace)][:2] == ["kept", "kept"]
    assert [call[0][0] for call in reader.calls] == ["Where do greyhound buses leave from in Cuyahoga County?"]
    assert result.metadata["knowledge_sources"]["corrected"] == 0


def test_without_completion_unsolved_nodes_stay_unsolved(kit) -> None:
    chain = f" {kit.Q1}\n[Answer 1]: Kevin Drew\n[Unsolved Query]: {kit.Q3}"
    result, trace, llm, reader = run(kit, kit.rounds_script([chain], " Kevin Drew [1]. So the answer is x."),
                                     completion=False)
    assert verdicts(trace) == [(1, "kept"), (1, "left_unsolved")]
    assert [call[0][0] for call in reader.calls] == [kit.Q1]
    assert result.metadata["knowledge_sources"] == {"llm": 1, "corrected": 0, "completed": 0, "unsolved": 1}
    assert result.metadata["stop_reason"] == "finished" and len(llm.prompts) == 2


def test_a_query_without_answer_is_verified_against_an_empty_answer(kit) -> None:
    """server.py: only an [Unsolved Query] line is completed; any other query goes through the reader's
    relevance gate and its answer is compared with the next answer line (none here)."""
    chain = f" {kit.Q1}\n[Query 2]: What else?"
    _, trace, llm, _ = run(kit, kit.rounds_script([chain, f"[Query 1]: {kit.Q1}\n[Answer 1]: Kevin Drew\n"
                                                          "[Final Content]: done"]))
    assert verdicts(trace)[0] == (1, "corrected")
    assert f"the answer for {kit.Q1} should be Kevin Drew, you can change your answer" in llm.prompts[1]


def test_a_query_without_answer_under_the_gate_is_kept(kit) -> None:
    chain = f" {kit.Q3}\n[Query 2]: What else?"  # the reader's confidence on Q3 is 0.1, under θ
    _, trace, llm, _ = run(kit, kit.rounds_script([chain]))
    assert verdicts(trace)[0] == (1, "kept")
    assert "should be" not in llm.prompts[-1]


def test_an_unsolved_query_with_an_answer_is_still_completed(kit) -> None:
    chain = f" {kit.Q1}\n[Answer 1]: Kevin Drew\n[Unsolved Query]: {kit.Q3}\n[Answer 2]: Toronto"
    _, trace, llm, _ = run(kit, kit.rounds_script([chain, f"[Query 1]: {kit.Q3}\n[Answer 1]: Toronto Coach "
                                                          "Terminal\n[Final Content]: done"]))
    assert verdicts(trace)[:2] == [(1, "kept"), (1, "completed")]
    assert f"the answer for {kit.Q3} should be Toronto Coach Terminal, you can give your answer" in llm.prompts[1]


def test_by_answer_a_query_left_without_answer_is_completed(kit) -> None:
    """The saved runs' rule (unsolved_by 'answer'): no answer line makes a node unsolved, whatever its tag."""
    chain = f" {kit.Q3}\n[Query 2]: What else?"
    _, trace, llm, _ = run(kit, kit.rounds_script([chain, f"[Query 1]: {kit.Q3}\n[Answer 1]: Toronto Coach "
                                                          "Terminal\n[Final Content]: done"]), unsolved_by="answer")
    assert verdicts(trace)[0] == (1, "completed")
    assert "you can give your answer" in llm.prompts[1]


def test_an_unreadable_chain_is_asked_again_then_fails_and_still_answers(kit) -> None:
    result, trace, llm, _ = run(kit, ["I am not sure.", "So the answer is: Toronto."])
    assert result.text == "Toronto" and result.metadata["stop_reason"] == "unreadable"
    assert len(llm.prompts) == 2 and "Write the reasoning chain in the format" in llm.prompts[1]
    assert llm.prompts[1].startswith(llm.prompts[0])
    reason, extract = trace.steps
    assert reason.kind == "reason" and reason.output is None and reason.extra["attempts"] == 2
    assert reason.extra["generations"] == ["[Query 1]:I am not sure.", "[Query 1]:So the answer is: Toronto."]
    assert "expected a chain" in reason.extra["error"]
    assert extract.kind == "extract" and extract.output == "Toronto" and extract.parent is None


def test_a_chain_readable_on_the_second_attempt_is_used(kit) -> None:
    chain = f" {kit.Q1}\n[Answer 1]: Kevin Drew\n[Final Content]: Kevin Drew [1]."
    result, trace, _, _ = run(kit, kit.rounds_script(["no idea", chain], " So the answer is Kevin Drew [1]."))
    reason = trace.steps[0]
    assert reason.kind == "reason" and reason.extra["attempts"] == 2 and reason.output["nodes"][0]["query"] == kit.Q1
    assert result.text == "Kevin Drew"


def test_a_chain_without_nodes_answers_from_its_final_content(kit) -> None:
    result, trace, llm, _ = run(kit, [" \n[Final Content]: So the final answer is Toronto."])
    assert result.text == "Toronto" and len(llm.prompts) == 1
    assert trace.steps[-1].kind == "extract" and trace.steps[-1].extra["source"] == "final_content"


def test_words_in_and_out_are_counted(kit) -> None:
    result, _, llm, _ = run(kit, kit.paper_script)
    assert result.metadata["words_in"] == sum(len(p.split()) for p in llm.prompts)
    assert result.metadata["words_out"] > 0


def test_more_passages_per_node_read_each_and_keep_the_surest(kit) -> None:
    chain = f" {kit.Q3}\n[Answer 1]: Vancouver\n[Final Content]: x"
    reader = ScriptedAnswer(lambda q, p: SpanAnswer("Toronto Coach Terminal", 4.0) if "Coach" in p
                            else SpanAnswer("Vancouver", 2.0))
    _, trace, _, _ = run(kit, kit.rounds_script([chain]), reader=reader, top_k=2)
    verify = next(step for step in trace.steps if step.kind == "verify")
    assert verify.paragraph_ids == (kit.TERMINAL.id,) and verify.output["verdict"] == "corrected"


def test_an_unreadable_later_round_ends_the_loop_and_traces_the_path_so_far(kit) -> None:
    first = f" {kit.Q1}\n[Answer 1]: Casey\n[Final Content]: Casey [1]."
    result, trace, llm, _ = run(kit, kit.rounds_script([first, "hmm", "still nothing"],
                                                       " Kevin Drew [1]. So the answer is Kevin Drew."))
    assert result.metadata["stop_reason"] == "unreadable" and result.metadata["rounds"] == 2
    assert result.text == "Kevin Drew"
    tracing = llm.prompts[-1]
    assert tracing.startswith(llm.prompts[-2]) and tracing.count(kit.Q1) == llm.prompts[-2].count(kit.Q1) + 1
    assert [step.kind for step in trace.steps][-2:] == ["reason", "read"]
    assert trace.steps[-2].output is None and trace.steps[-2].extra["round"] == 2


EXAMPLE_ROUND_1 = " Who is the performer of Spirit If...?\n[Answer 1]: Casey Morton Cott\n[Final Content]: x"
EXAMPLE_ROUND_2 = ("[Query 1]: Who is the performer of Spirit If...?\n[Answer 1]: Kevin Drew\n"
                   "[Query 2]: What is the place of birth of Kevin Drew?\n[Answer 2]: Toronto\n"
                   "[Final Content]: So the final answer is Toronto.")
EXAMPLE_FINAL = " The performer is Kevin Drew [1]. He was born in Toronto [2]. So the final answer is Toronto."


def example_trace(kit) -> Trace:
    _, trace, _, _ = run(kit, kit.rounds_script([EXAMPLE_ROUND_1, EXAMPLE_ROUND_2], EXAMPLE_FINAL))
    return trace


def test_the_example_in_docs_traces_md_is_this_trace(kit) -> None:
    docs = Path(__file__).resolve().parents[3] / "docs" / "traces.md"
    block = docs.read_text(encoding="utf-8").split("<!-- searchain-example-trace -->")[1].split(
        "<!-- /searchain-example-trace -->")[0]
    documented = json.loads(block.strip().removeprefix("```json").removesuffix("```"))
    assert example_trace(kit).to_json() == documented
