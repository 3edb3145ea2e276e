"""LLM knowledge prompting (Table 15) when no passage passes the filter, and its ablation (Table 6)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from hopkit.judges.scripted import ScriptedRelevance
from hopkit.traces import collect_trace

pytestmark = pytest.mark.unit

OWN = "Ada Quill, founder of Velmora Ironworks, was born in Tarsk."


def run(kit: SimpleNamespace, handlers: dict, **options: object) -> tuple[object, object, object]:
    model = kit.ModuleModel(handlers)
    with collect_trace() as trace:
        result = kit.build(model, reranker=ScriptedRelevance({}, default=-4.0), **options).generate(kit.QUESTION)
    return model, result, trace


def test_when_nothing_passes_the_filter_the_model_is_asked_what_it_knows(kit: SimpleNamespace) -> None:
    leaf = '{"useful_information": [{"info": "Ada Quill was born in Tarsk", "support_passages": [0]}]}'
    handlers = {**kit.two_hop_handlers(), "knowledge": lambda text: OWN, "leaf": lambda text: leaf}
    model, result, trace = run(kit, handlers)
    assert result.text == "Tarsk"
    assert model.modules() == ["knowledge", "leaf", "main"]
    assert model.prompts_of("knowledge") == [f"Question: {kit.QUESTION.text}\nInformation:"]
    assert model.prompts_of("leaf")[0].startswith(f"Passage 0: (Title: None) {OWN}\nQuestion: ")  # the authors' way
    assert result.chunk_ids == ()  # no corpus passage was read
    assert result.metadata["knowledge_prompts"] == 1
    knowledge = trace.steps[1]
    assert (knowledge.kind, knowledge.extra["module"], knowledge.output) == ("reason", "knowledge", OWN)
    leaf_step = trace.steps[2]
    assert leaf_step.paragraph_ids == () and leaf_step.extra["passages"][0]["paragraph_id"] is None
    verify = trace.steps[3]
    assert verify.kind == "verify" and verify.output is True  # checked against the knowledge itself


def test_without_knowledge_prompting_nothing_is_read_and_new_queries_are_asked(kit: SimpleNamespace) -> None:
    handlers = {**kit.two_hop_handlers(), "final_main": lambda text: kit.TARSK_ANSWER}
    model, result, trace = run(kit, handlers, knowledge_prompting=False, max_iterations=1)
    assert "knowledge" not in model.modules() and "leaf" not in model.modules()
    assert model.modules() == ["main", "query", "final_main"]
    assert model.prompts_of("main")[0].startswith("Information: None\n")
    assert result.metadata["knowledge_prompts"] == 0


def test_empty_knowledge_is_not_read(kit: SimpleNamespace) -> None:
    handlers = {**kit.two_hop_handlers(), "knowledge": lambda text: "  "}
    model, result, _ = run(kit, handlers, max_iterations=1)
    assert model.modules() == ["knowledge", "main", "query", "knowledge", "final_main"]
