"""The authors' rules MIGRES follows by default (AdelWang/MIGRES code/pipeline.py, search_engine.py), each
against the value the campaign's saved runs had (hopkit/campaign/saved_run_pins.yaml)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from hopkit.judges.scripted import ScriptedRelevance
from hopkit.methods.migres.responses import parse_main
from hopkit.records import Paragraph, Query
from hopkit.traces import collect_trace

pytestmark = pytest.mark.unit

GRANDMOTHER = Query("q2", "Who is the maternal grandmother of Ada Quill?", ("Mira Quill",))
ANSWER = '{"answer": {"text": "Mira Quill", "confidence": 4}, "explanation": "e"}'


def run(kit: SimpleNamespace, handlers: dict, query: Query | None = None, **options: object) -> tuple[object, object, object]:
    model = kit.ModuleModel(handlers)
    with collect_trace() as trace:
        result = kit.build(model, **options).generate(query or kit.QUESTION)
    return model, result, trace


def test_a_question_naming_a_grandparent_relation_starts_knowing_its_definition(kit: SimpleNamespace) -> None:
    handlers = {"main": lambda text: ANSWER, "final_main": lambda text: ANSWER}
    options = {"reranker": ScriptedRelevance({}, default=-4.0), "knowledge_prompting": False}
    model, result, _ = run(kit, handlers, GRANDMOTHER, **options)
    assert model.prompts_of("main")[0].startswith("Information: maternal grandmother is mother's mother\nQuestion: ")
    assert result.metadata["known_information"] == ["maternal grandmother is mother's mother"]
    model, _, _ = run(kit, handlers, GRANDMOTHER, relation_hints=False, **options)
    assert model.prompts_of("main")[0].startswith("Information: None\n")


def test_a_snippet_under_five_words_is_not_shown_to_the_leaf(kit: SimpleNamespace) -> None:
    short = Paragraph(20, "Velmora", "Founded by Ada Quill.")  # four words
    reranker = kit.relevance_by_title({kit.QUESTION.text: ("Velmora Ironworks", "Velmora")})
    corpus = (*kit.CORPUS, short)
    options = {"reranker": reranker, "corpus": corpus, "max_iterations": 1, "last_main": "iteration_t"}
    model, result, _ = run(kit, kit.two_hop_handlers(), **options)
    leaf = model.prompts_of("leaf")[0]
    assert "Founded by Ada Quill." not in leaf and "Passage 0: (Title: Velmora Ironworks)" in leaf
    assert short.id not in result.chunk_ids
    model, result, _ = run(kit, kit.two_hop_handlers(), min_snippet_words=0, **options)
    assert "Founded by Ada Quill." in model.prompts_of("leaf")[0] and short.id in result.chunk_ids


def test_generated_knowledge_that_refuses_is_not_shown_to_the_leaf(kit: SimpleNamespace) -> None:
    refusal = "I'm sorry, but I have no details about the founder of Velmora Ironworks."
    handlers = {**kit.two_hop_handlers(), "knowledge": lambda text: refusal}
    options = {"reranker": ScriptedRelevance({}, default=-4.0), "max_iterations": 1, "last_main": "iteration_t"}
    model, _, _ = run(kit, handlers, **options)
    assert model.modules() == ["knowledge", "final_main"]
    model, _, _ = run(kit, handlers, drop_knowledge_refusals=False, **options)
    assert model.modules() == ["knowledge", "leaf", "final_main"]


def test_too_few_hits_search_again_with_the_authors_prefix(kit: SimpleNamespace) -> None:
    archive = Paragraph(30, "Brill archive", "The archive in Brill keeps information on northern harbours.")
    corpus = (*kit.CORPUS, archive)
    options = {"corpus": corpus, "hits_per_query": 10, "max_iterations": 1, "last_main": "iteration_t"}
    _, _, trace = run(kit, kit.two_hop_handlers(), **options)
    first = trace.steps[0]
    assert first.input == kit.QUESTION.text
    assert first.extra["searched"] == f"Find information about {kit.QUESTION.text}"
    assert archive.id in first.paragraph_ids  # found by the prefix's "information" alone
    _, _, trace = run(kit, kit.two_hop_handlers(), second_search=False, **options)
    assert archive.id not in trace.steps[0].paragraph_ids and "searched" not in trace.steps[0].extra


def test_with_no_new_query_the_question_is_asked_again(kit: SimpleNamespace) -> None:
    handlers = {**kit.two_hop_handlers(), "query": lambda text: kit.QUESTION.text,
                "main": lambda text: kit.UNANSWERABLE, "final_main": lambda text: kit.TARSK_ANSWER}
    options = {"max_iterations": 1, "knowledge_prompting": False}
    _, result, trace = run(kit, handlers, **options)
    assert [s.input for s in trace.steps if s.kind == "retrieve"] == [kit.QUESTION.text, kit.QUESTION.text]
    assert result.metadata["stop_reason"] == "max_iterations"
    _, result, trace = run(kit, handlers, no_new_queries="last_main", **options)
    assert [s.input for s in trace.steps if s.kind == "retrieve"] == [kit.QUESTION.text]
    assert result.metadata["stop_reason"] == "no_new_queries"


def test_t_iterations_each_search_before_the_last_main(kit: SimpleNamespace) -> None:
    model, result, _ = run(kit, kit.two_hop_handlers(), max_iterations=1)
    assert model.modules() == ["leaf", "main", "query", "leaf", "final_main"] and result.text == "Tarsk"
    assert result.metadata["iterations"] == 2 and result.metadata["stop_reason"] == "max_iterations"
    model, result, _ = run(kit, kit.two_hop_handlers(), max_iterations=1, last_main="iteration_t")
    assert model.modules() == ["leaf", "final_main"] and result.metadata["iterations"] == 1


def test_missing_information_under_ten_characters_gives_way_to_the_explanation(kit: SimpleNamespace) -> None:
    short = ('{"answer": {"text": "unanswerable", "confidence": 1}, "explanation": "Ada Quill\'s birthplace is '
             'not given.", "missing_information": "N/A"}')
    handlers = {**kit.two_hop_handlers(), "main": lambda text: short, "final_main": lambda text: kit.TARSK_ANSWER}
    options = {"max_iterations": 1, "knowledge_prompting": False}
    model, _, _ = run(kit, handlers, **options)
    assert "Missing Information: Ada Quill's birthplace is not given.\nNew queries:" in model.prompts_of("query")[0]
    model, _, _ = run(kit, handlers, min_missing_information_chars=1, **options)
    assert "Missing Information: N/A\nNew queries:" in model.prompts_of("query")[0]
    verdict = parse_main(short)
    assert (verdict.wanted(10), verdict.wanted(3), verdict.wanted(1)) == (
        "Ada Quill's birthplace is not given.", "N/A", "N/A")


def test_a_generated_query_of_ten_characters_or_fewer_is_not_asked(kit: SimpleNamespace) -> None:
    handlers = {**kit.two_hop_handlers(), "query": lambda text: f"Who is A?\n{kit.FOLLOW_UP}"}
    options = {"max_iterations": 1, "knowledge_prompting": False}
    _, result, _ = run(kit, handlers, **options)
    assert result.metadata["queries"] == [kit.QUESTION.text, kit.FOLLOW_UP]
    _, result, _ = run(kit, handlers, min_query_chars=0, **options)
    assert result.metadata["queries"] == [kit.QUESTION.text, "Who is A?", kit.FOLLOW_UP]


def test_a_passage_is_used_once_more_only_for_information_new_to_the_known(kit: SimpleNamespace) -> None:
    """Round 2 shows Ada Quill's passage and the Leaf cites it for a fact already known: the authors count no
    extra use, so round 3 can show it again; counting every kept fact (the saved runs) uses it up."""
    again = "Which town was Ada Quill from?"
    reranker = kit.relevance_by_title({kit.QUESTION.text: ("Velmora Ironworks",), kit.FOLLOW_UP: ("Ada Quill",),
                                       again: ("Ada Quill",)})
    handlers = {"main": lambda text: kit.UNANSWERABLE, "final_main": lambda text: kit.TARSK_ANSWER,
                "leaf": lambda text: kit.FOUNDED,
                "query": lambda text: again if kit.FOLLOW_UP in text.split("\n")[1] else kit.FOLLOW_UP}
    options = {"reranker": reranker, "max_iterations": 2, "knowledge_prompting": False}
    model, _, _ = run(kit, handlers, **options)
    # the second Main is not asked: nothing new is known (reuse_main_without_new_information)
    assert model.modules() == ["leaf", "main", "query", "leaf", "query", "leaf", "final_main"]
    assert "(Title: Ada Quill)" in model.prompts_of("leaf")[2]
    model, _, _ = run(kit, handlers, cited_use="kept_facts", **options)
    assert model.modules() == ["leaf", "main", "query", "leaf", "query", "final_main"]


def test_llm_knowledge_is_shown_with_the_title_none(kit: SimpleNamespace) -> None:
    own = "Velmora Ironworks was founded in 1871 by the engineer Ada Quill."
    handlers = {**kit.two_hop_handlers(), "knowledge": lambda text: own}
    options = {"reranker": ScriptedRelevance({}, default=-4.0), "max_iterations": 1, "last_main": "iteration_t"}
    model, _, _ = run(kit, handlers, **options)
    assert model.prompts_of("leaf")[0].startswith(f"Passage 0: (Title: None) {own}\nQuestion: ")
    model, _, _ = run(kit, handlers, knowledge_title_none=False, **options)
    assert model.prompts_of("leaf")[0].startswith(f"Passage 0: {own}\nQuestion: ")
