"""The Memory Module: no repeated query, a passage used twice is not given again, known facts once."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from hopkit.methods.migres.memory import Memory
from hopkit.traces import collect_trace

pytestmark = pytest.mark.unit


def test_a_query_asked_before_is_not_asked_again() -> None:
    memory = Memory()
    assert memory.ask(["Who founded Velmora?", "Where is Tarsk?"]) == (["Who founded Velmora?", "Where is Tarsk?"], [])
    assert memory.ask(["who founded  velmora", "Where is Brill?", "Where is Brill?"]) == (
        ["Where is Brill?"], ["who founded  velmora", "Where is Brill?"])
    assert memory.asked == ["Who founded Velmora?", "Where is Tarsk?", "Where is Brill?"]


def test_known_information_is_kept_once() -> None:
    memory = Memory()
    assert memory.learn("Ada Quill was born in Tarsk.")
    assert not memory.learn("ada quill was born in Tarsk")
    assert memory.learn("Tarsk is a port")
    assert memory.facts == ["Ada Quill was born in Tarsk.", "Tarsk is a port"]


def test_a_passage_used_twice_is_exhausted() -> None:
    memory = Memory(max_uses=2)
    memory.use(11)
    assert not memory.exhausted(11)
    memory.use(11)
    assert memory.exhausted(11) and memory.uses(11) == 2 and not memory.exhausted(12)


def test_with_no_new_queries_last_main_repeated_queries_end_the_search(kit: SimpleNamespace) -> None:
    handlers = {**kit.two_hop_handlers(), "query": lambda text: f"{kit.QUESTION.text}\n",
                "final_main": lambda text: kit.TARSK_ANSWER}
    model = kit.ModuleModel(handlers)
    with collect_trace() as trace:
        result = kit.build(model, no_new_queries="last_main").generate(kit.QUESTION)
    assert model.modules() == ["leaf", "main", "query", "final_main"]
    queries = next(s for s in trace.steps if s.extra.get("module") == "query")
    assert queries.output == [] and queries.extra["repeated"] == [kit.QUESTION.text]
    assert result.metadata["stop_reason"] == "no_new_queries"
    assert result.metadata["queries"] == [kit.QUESTION.text]


def test_at_most_the_configured_number_of_new_queries(kit: SimpleNamespace) -> None:
    handlers = {**kit.two_hop_handlers(), "query": lambda text: "A?\nB?\nC?\nD?"}
    model = kit.ModuleModel(handlers)
    with collect_trace() as trace:
        result = kit.build(model, max_iterations=1, max_new_queries=3, min_query_chars=0,
                           knowledge_prompting=False).generate(kit.QUESTION)
    queries = next(s for s in trace.steps if s.extra.get("module") == "query")
    assert queries.output == ["A?", "B?", "C?"] and queries.extra["over_limit"] == ["D?"]
    assert result.metadata["queries"] == [kit.QUESTION.text, "A?", "B?", "C?"]


def test_a_passage_shown_and_cited_is_not_given_to_the_leaf_again(kit: SimpleNamespace) -> None:
    # Every query finds the ironworks passage relevant; the leaf cites it each time it sees it.
    reranker = kit.relevance_by_title({q: ("Velmora Ironworks",) for q in
                                       (kit.QUESTION.text, "Who founded Velmora Ironworks?", "Velmora Ironworks?")})
    queries = iter(["Who founded Velmora Ironworks?", "Velmora Ironworks?"])
    handlers = {**kit.two_hop_handlers(), "query": lambda text: next(queries), "main": lambda text: kit.UNANSWERABLE,
                "final_main": lambda text: kit.TARSK_ANSWER}
    model = kit.ModuleModel(handlers)
    with collect_trace() as trace:
        kit.build(model, reranker=reranker, max_iterations=2, knowledge_prompting=False).generate(kit.QUESTION)
    # shown once and cited once: two uses, so the second query's retrieval drops it unscored
    assert model.modules() == ["leaf", "main", "query", "query", "final_main"]  # the second Main verdict reused
    second = [s for s in trace.steps if s.kind == "retrieve"][1]
    dropped = {d["paragraph_id"]: d["outcome"] for d in second.output["dropped"]}
    assert dropped[kit.IRONWORKS.id] == "used_twice" and second.output["kept"] == []
