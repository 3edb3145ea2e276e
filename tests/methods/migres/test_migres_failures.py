"""Unreadable model output: asked once more, then recorded as a failed step, and the question still answered."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from hopkit.traces import collect_trace

pytestmark = pytest.mark.unit

GARBAGE = "I think the answer might be somewhere."


def run(kit: SimpleNamespace, handlers: dict, **options: object) -> tuple[object, object, object]:
    model = kit.ModuleModel(handlers)
    with collect_trace() as trace:
        result = kit.build(model, **options).generate(kit.QUESTION)
    return model, result, trace


def test_an_unreadable_main_response_is_asked_once_more_with_a_correction(kit: SimpleNamespace) -> None:
    answers = iter([GARBAGE, kit.TARSK_ANSWER])
    handlers = {**kit.two_hop_handlers(), "main": lambda text: next(answers)}
    model, result, trace = run(kit, handlers)
    assert result.text == "Tarsk"
    assert model.modules() == ["leaf", "main", "main"]
    retry = model.llm.prompts[-1]
    assert retry.startswith(model.llm.prompts[-2])  # the same prompt, extended: a prefix cache serves it
    assert retry.endswith(f"Your response: {GARBAGE}\nThat response could not be read (no value for 'text'). "
                          "Please generate a dict format response.\nYour response:")
    assert trace.steps[-1].extra["generations"] == [GARBAGE, kit.TARSK_ANSWER]


def test_a_main_module_unreadable_twice_is_a_failed_step_and_the_last_iteration_answers(
        kit: SimpleNamespace) -> None:
    answers = iter([GARBAGE, "still not a dict"])
    handlers = {**kit.two_hop_handlers(), "main": lambda text: next(answers),
                "final_main": lambda text: '{"answer": {"text": "Tarsk", "confidence": 2}, "explanation": "e"}'}
    model, result, trace = run(kit, handlers)
    assert result.text == "Tarsk"
    assert model.modules() == ["leaf", "main", "main", "final_main"]
    failed = trace.steps[-2]
    assert (failed.kind, failed.output, failed.extra["module"], failed.extra["failed"]) == ("reason", None, "main",
                                                                                             True)
    assert failed.extra["generations"] == [GARBAGE, "still not a dict"]
    assert "no value for 'text'" in failed.extra["error"]
    assert result.metadata["stop_reason"] == "unreadable_main"
    assert result.metadata["iterations"] == 2


def test_an_unreadable_leaf_response_gives_no_facts_and_the_search_goes_on(kit: SimpleNamespace) -> None:
    """pipeline.py: a Leaf response without 'useful_information' adds nothing; the loop carries on."""
    handlers = {**kit.two_hop_handlers(), "leaf": lambda text: GARBAGE, "main": lambda text: kit.UNANSWERABLE,
                "final_main": lambda text: '{"answer": {"text": "Brill", "confidence": 1}, "explanation": "guess"}'}
    model, result, trace = run(kit, handlers, max_iterations=1, knowledge_prompting=False)
    assert model.modules() == ["leaf", "leaf", "main", "query", "leaf", "leaf", "final_main"]
    assert result.text == "Brill" and result.metadata["stop_reason"] == "max_iterations"
    assert result.metadata["known_information"] == []
    assert [s.extra["module"] for s in trace.steps if s.extra.get("failed")] == ["leaf", "leaf"]


def test_by_the_saved_runs_rule_an_unreadable_leaf_response_ends_the_search(kit: SimpleNamespace) -> None:
    handlers = {**kit.two_hop_handlers(), "leaf": lambda text: GARBAGE,
                "final_main": lambda text: '{"answer": {"text": "Brill", "confidence": 1}, "explanation": "guess"}'}
    model, result, trace = run(kit, handlers, unreadable="last_main")
    assert result.text == "Brill"
    assert model.modules() == ["leaf", "leaf", "final_main"]
    failed = next(s for s in trace.steps if s.kind == "extract")
    assert failed.extra == {"module": "leaf", "failed": True, "error": failed.extra["error"],
                            "generations": [GARBAGE, GARBAGE]}
    assert result.metadata["stop_reason"] == "unreadable_leaf"


def test_an_unreadable_query_response_asks_the_question_again(kit: SimpleNamespace) -> None:
    """pipeline.py: no line of the Query Generator's response over 10 characters -> the original question."""
    handlers = {**kit.two_hop_handlers(), "query": lambda text: "   ", "main": lambda text: kit.UNANSWERABLE,
                "final_main": lambda text: kit.TARSK_ANSWER}
    model, result, trace = run(kit, handlers, max_iterations=1, knowledge_prompting=False)
    assert model.modules() == ["leaf", "main", "query", "query", "final_main"]  # the passages are used up
    assert [s.input for s in trace.steps if s.kind == "retrieve"] == [kit.QUESTION.text, kit.QUESTION.text]
    assert result.text == "Tarsk" and result.metadata["stop_reason"] == "max_iterations"


def test_by_the_saved_runs_rule_an_unreadable_query_response_goes_to_the_last_iteration(
        kit: SimpleNamespace) -> None:
    handlers = {**kit.two_hop_handlers(), "query": lambda text: "   ",
                "final_main": lambda text: kit.TARSK_ANSWER}
    model, result, trace = run(kit, handlers, unreadable="last_main")
    assert model.modules() == ["leaf", "main", "query", "query", "final_main"]
    assert result.text == "Tarsk" and result.metadata["stop_reason"] == "unreadable_query"
    assert any(s.extra.get("module") == "query" and s.extra.get("failed") for s in trace.steps)


def test_an_unreadable_last_answer_still_gives_the_question_an_answer(kit: SimpleNamespace) -> None:
    handlers = {**kit.two_hop_handlers(), "final_main": lambda text: "So the answer is: Tarsk."}
    model, result, trace = run(kit, handlers, max_iterations=1)
    assert result.text == "Tarsk"
    last = trace.steps[-1]
    assert (last.kind, last.extra["module"], last.extra["failed"]) == ("read", "final_main", True)
    assert last.extra["generations"] == ["So the answer is: Tarsk.", "So the answer is: Tarsk."]
