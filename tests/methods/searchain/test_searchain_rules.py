"""SearChain's rules: Verification and Completion, ROUGE-L for long-form answers, tracing marks, tasks."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hopkit.evaluation.metrics import rouge_l
from hopkit.judges.protocol import SpanAnswer
from hopkit.judges.scripted import ScriptedAnswer, ScriptedEntailment
from hopkit.judges.sentences import SyntokSplitter
from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.searchain.method import SearChain, SearChainConfig
from hopkit.methods.searchain.conversation import chain_stop
from hopkit.methods.searchain.feedback import FeedbackRules, answers_agree, judge_node
from hopkit.methods.searchain.tracing import (Mark, alce_citation_scores, knowledge_coverage, render_traced,
                                              resolve_marks, resolved_statements, statements, task_answer)
from hopkit.methods.searchain.tree import NodeRecord, PathNode
from hopkit.methods.searchain.prompts import STRATEGYQA_PROMPT, first_round_prompt
from hopkit.records import Paragraph, Query
from hopkit.traces import collect_trace

pytestmark = pytest.mark.unit

SURE, UNSURE = SpanAnswer("Kevin Drew", 2.0), SpanAnswer("Kevin Drew", 1.5)


@pytest.mark.parametrize(("answer", "reading", "rules", "verdict"), [
    ("Casey Morton Cott", SURE, FeedbackRules(), "corrected"),
    ("Casey Morton Cott", UNSURE, FeedbackRules(), "kept"),              # f must exceed θ
    ("It was kevin drew.", SURE, FeedbackRules(), "kept"),              # g appears in a_i
    ("Kevin Drewson", SURE, FeedbackRules(), "corrected"),              # whole words only
    ("Casey Morton Cott", SURE, FeedbackRules(verification=False), "kept"),
    ("Casey Morton Cott", SpanAnswer("", float("-inf")), FeedbackRules(), "kept"),
    (None, UNSURE, FeedbackRules(), "completed"),                       # whatever f
    (None, SpanAnswer("Kevin Drew", -9.0), FeedbackRules(), "completed"),
    (None, UNSURE, FeedbackRules(completion=False), "left_unsolved"),
    (None, None, FeedbackRules(), "left_unsolved"),                     # nothing retrieved
    (None, SpanAnswer("", float("-inf")), FeedbackRules(), "left_unsolved"),
    ("Casey", SURE, FeedbackRules(threshold=5.0), "kept"),
])
def test_verification_and_completion(answer, reading, rules, verdict) -> None:
    assert judge_node(answer, reading, "a passage", rules) == verdict


def test_long_form_answers_are_checked_against_the_passage_by_rouge_l() -> None:
    passage = "Contrails form when hot humid exhaust from jet engines mixes with cold air and freezes into ice."
    close = "Contrails form when hot exhaust from jet engines mixes with cold air and freezes."
    far = "Planes leave smoke from burning fuel."
    rules = FeedbackRules(long_form=True, rouge_threshold=0.35)
    reading = SpanAnswer("water vapour", 3.0)  # not in either answer: only ROUGE-L decides
    assert rouge_l(close, passage) >= 0.35 > rouge_l(far, passage)
    assert judge_node(close, reading, passage, rules) == "kept"
    assert judge_node(far, reading, passage, rules) == "corrected"
    assert judge_node(far, SpanAnswer("water vapour", 1.0), passage, rules) == "kept"  # f <= θ


def test_rouge_l_values() -> None:
    assert rouge_l("the cat sat on the mat", "the cat sat on the mat") == 1.0
    assert rouge_l("cat mat", "cat sat mat") == pytest.approx(2 * 1 * (2 / 3) / (1 + 2 / 3))
    assert rouge_l("", "cat") == 0.0 and rouge_l("dog", "cat") == 0.0


@given(st.text(alphabet="abc xyz", max_size=30), st.text(alphabet="abc xyz", max_size=30))
def test_rouge_l_is_a_symmetric_score_in_the_unit_interval(first: str, second: str) -> None:
    score = rouge_l(first, second)
    assert 0.0 <= score <= 1.0 and score == pytest.approx(rouge_l(second, first))


def test_answers_agree_on_normalised_whole_words() -> None:
    assert answers_agree("The Kevin Drew.", "kevin drew") and not answers_agree("Kevin", "Kevin Drew")
    assert not answers_agree("anything", "")


def path_of(*paragraphs: Paragraph | None) -> list[PathNode]:
    return [PathNode(f"q{i}", f"a{i}", NodeRecord(f"q{i}", f"a{i}", "kept", p) if p is not None else None)
            for i, p in enumerate(paragraphs, start=1)]


A, B = Paragraph(7, "A", "Ada was born in Tarsk."), Paragraph(8, "B", "Tarsk is a port.")


def test_marks_resolve_by_position_on_the_path_and_are_scored() -> None:
    path = path_of(A, None, B)
    marks = resolve_marks("x [1]. y [2]. z [3] [1]. w [9].", path)
    assert [(m.number, m.paragraph_id, m.valid) for m in marks] == [
        (1, 7, True), (2, None, False), (3, 8, True), (1, 7, True), (9, None, False)]
    assert knowledge_coverage(marks) == 2
    assert render_traced("Ada was born in Tarsk [1], a port [3].", path).splitlines() == [
        "Ada was born in Tarsk [1], a port [3].", "[1] A: Ada was born in Tarsk.", "[3] B: Tarsk is a port."]


def test_alce_citation_recall_and_precision() -> None:
    path = path_of(A, B)
    found = statements("Ada was born in Tarsk [1] [2]. Tarsk is a port [2]. So the answer is Tarsk.", path,
                       SyntokSplitter())
    assert [s.text for s in found] == ["Ada was born in Tarsk.", "Tarsk is a port.", "So the answer is Tarsk."]
    texts = {7: "A: Ada was born in Tarsk.", 8: "B: Tarsk is a port."}

    def entails(premise: str, hypothesis: str) -> float:
        return 1.0 if hypothesis.rstrip(".") in premise else 0.0

    recall, precision = alce_citation_scores(found, texts, ScriptedEntailment(entails))
    # two of three statements supported; of three citations, [2] on the first is irrelevant
    assert recall == pytest.approx(2 / 3) and precision == pytest.approx(2 / 3)


def test_stored_marks_resolve_the_same_statements_as_the_path() -> None:
    content = "Ada was born in Tarsk [1] [2]. Tarsk is a port [3]. So the answer is Tarsk."
    from_path = statements(content, path_of(A, None, B), SyntokSplitter())
    stored = {1: 7, 2: None, 3: 8}
    from_marks = resolved_statements(content, lambda number: Mark(number, stored.get(number)), SyntokSplitter())
    assert from_marks == from_path
    assert [[m.paragraph_id for m in s.marks] for s in from_marks] == [[7, None], [8], []]


@pytest.mark.parametrize(("task", "content", "answer"), [
    ("multihop", "Kevin Drew [1] was born in Toronto [2]. So the final answer is Toronto.", "Toronto"),
    ("strategyqa", "0.59 is not greater than 1 [3]. So the final answer is No.", "No"),
    ("strategyqa", "Frost happens in winter [1]. yes, it is common.", "Yes"),
    ("fact", "Telemundo is a network [1]. So the final answer is REFUTES.", "REFUTES"),
    ("longform", "Contrails form from exhaust [1]. They freeze [2].", "Contrails form from exhaust. They freeze."),
])
def test_task_answers(task: str, content: str, answer: str) -> None:
    assert task_answer(task, content) == answer


def test_strategyqa_uses_figure_15_and_answers_yes_or_no() -> None:
    corpus = Paragraph(1, "Frost", "Frost is common in winter, and some commencements are in December.")
    chain = (" What seasons can you expect see frost?\n[Answer 1]: Winter.\n"
             '[Question]: "Is it common to see frost during some college commencements?" (Yes or No)\n'
             "[Final Content]: You expect see frost in Winter [1]. So the final answer is Yes.")

    def script(prompt: str) -> str:
        return " You expect see frost in Winter [1]. So the final answer is Yes." if prompt.endswith(
            "[Final Content]:") else chain

    from hopkit.retrieval.bm25 import BM25Retriever

    llm = ScriptedLLM(script)
    method = SearChain(llm, BM25Retriever.build([corpus, Paragraph(2, "Other", "Nothing here.")]),
                       SearChainConfig(task="strategyqa"), reader=ScriptedAnswer(lambda q, p: SpanAnswer("winter", 3.0)))
    with collect_trace():
        result = method.generate(Query("s1", "Is it common to see frost during some college commencements?"))
    assert result.text == "Yes"
    assert llm.prompts[0].startswith(STRATEGYQA_PROMPT.split("{question}")[0])
    assert "\n[Question]" not in chain_stop("strategyqa") and "\n[Question]" in chain_stop("multihop")


def test_fact_checking_questions_are_asked_as_the_examples_ask_them() -> None:
    prompt = first_round_prompt("fact", "Telemundo is a English-language television network.")
    assert prompt.endswith('[Question]: "Telemundo is a English-language television network. (SUPPORTS or '
                           'REFUTES)?"\n[Query 1]:')
