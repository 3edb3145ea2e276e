"""MIGRES's loop on a two-hop toy question, with a model scripted per module and a real BM25 index."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from hopkit.llm.meter import MeteredLLM
from hopkit.methods.migres import prompts
from hopkit.traces import Trace, collect_trace
from hopkit.usage import track_usage

pytestmark = pytest.mark.unit


def answer(kit: SimpleNamespace, model: object, **options: object) -> tuple[object, Trace]:
    method = kit.build(model, **options)
    with collect_trace() as trace:
        result = method.generate(kit.QUESTION)
    return result, trace


def test_two_hops_find_the_founder_then_her_birthplace(kit: SimpleNamespace) -> None:
    model = kit.ModuleModel(kit.two_hop_handlers())
    model.llm = MeteredLLM(model.llm)
    with track_usage() as usage:
        result, trace = answer(kit, model)

    assert result.text == "Tarsk"
    # leaf, main (unanswerable), query, leaf, main (answer)
    assert model.modules() == ["leaf", "main", "query", "leaf", "main"]
    assert result.chunk_ids == (kit.IRONWORKS.id, kit.ADA.id)
    assert result.metadata["iterations"] == 2
    assert result.metadata["stop_reason"] == "answered"
    assert result.metadata["confidence"] == 5
    # each module's model calls, tokens and seconds are in the usage record, under its label
    spent = {name: entry.llm_calls for name, entry in usage.components.items()}
    assert spent == {"migres:leaf": 2, "migres:main": 2, "migres:query": 1, "judge:relevance": 0,
                     "judge:entailment": 0} and usage.llm_calls == 5  # the scripted judges call no model
    assert not {"llm_calls", "seconds", "prompt_tokens", "cached_prompt_tokens"} & set(result.metadata)
    assert result.metadata["passages_used"] == 2
    assert result.metadata["queries"] == [kit.QUESTION.text, kit.FOLLOW_UP]
    assert result.metadata["known_information"] == ["Velmora Ironworks was founded by Ada Quill",
                                                    "Ada Quill was born in Tarsk"]
    assert result.metadata["knowledge_tokens"] > 0
    # each module's prompt tokens (the scripted model counts words and caches nothing)
    query_words = len(prompts.QUERY_INSTRUCTION.split()) + len(model.prompts_of("query")[0].split())
    assert usage.components["migres:query"].prompt_tokens == query_words
    assert usage.cached_prompt_tokens == 0 and usage.components["migres:leaf"].calls == 2

    # the Main Module sees the known information, joined as the authors' demonstrations join it
    assert model.prompts_of("main")[1].startswith(
        "Information: Velmora Ironworks was founded by Ada Quill; Ada Quill was born in Tarsk\nQuestion: ")
    query_prompt = model.prompts_of("query")[0]
    assert f"Historical Questions: {kit.QUESTION.text}" in query_prompt
    assert "Missing Information: Where Ada Quill was born" in query_prompt
    # the second leaf call is asked the new query about the passage it retrieved
    assert model.prompts_of("leaf")[1].endswith(f"Question: {kit.FOLLOW_UP}\nYour response:")


def test_the_trace_says_why_it_answered(kit: SimpleNamespace) -> None:
    result, trace = answer(kit, kit.ModuleModel(kit.two_hop_handlers()))
    steps = trace.steps
    assert [(s.kind, s.extra.get("module")) for s in steps] == [
        ("retrieve", "retriever"), ("extract", "leaf"), ("verify", "nli"), ("reason", "main"),
        ("reason", "query"), ("retrieve", "retriever"), ("extract", "leaf"), ("verify", "nli"), ("read", "main")]
    first = steps[0]
    assert first.input == kit.QUESTION.text
    assert [k["paragraph_id"] for k in first.output["kept"]] == [kit.IRONWORKS.id]
    assert {d["outcome"] for d in first.output["dropped"]} == {"below_threshold"}
    assert len(first.scores) == len(first.paragraph_ids)  # BM25 scores of the hits
    leaf = steps[1]
    assert leaf.paragraph_ids == (kit.IRONWORKS.id,)
    assert leaf.output == [{"info": "Velmora Ironworks was founded by Ada Quill", "support_passages": [0],
                            "paragraph_ids": [kit.IRONWORKS.id], "entailment": 0.9, "outcome": "learnt"}]
    assert steps[2].parent == leaf.id and steps[2].output is True and steps[2].scores == {"entailment": 0.9}
    main = steps[3]
    assert main.output == {"answer": "unanswerable", "confidence": 1,
                           "missing_information": "Where Ada Quill was born"}
    assert main.scores == {"confidence": 1}
    assert steps[4].output == [kit.FOLLOW_UP]
    assert steps[-1].output == "Tarsk" and steps[-1].scores == {"confidence": 5}
    cited = [(c.step, c.claim, c.paragraph_ids) for c in trace.citations]
    assert cited == [(leaf.id, "Velmora Ironworks was founded by Ada Quill", (kit.IRONWORKS.id,)),
                     (steps[6].id, "Ada Quill was born in Tarsk", (kit.ADA.id,))]
    Trace.from_json(trace.to_json())  # it round-trips as JSON


def test_the_last_iteration_may_answer_from_the_models_own_knowledge(kit: SimpleNamespace) -> None:
    handlers = kit.two_hop_handlers()
    handlers["main"] = lambda text: kit.UNANSWERABLE
    handlers["final_main"] = lambda text: '{"answer": {"text": "Tarsk", "confidence": 3}, "explanation": "I know."}'
    queries = iter(["Who founded the ironworks?", "Where was Ada born?"])
    handlers["query"] = lambda text: next(queries)
    model = kit.ModuleModel(handlers)
    result, trace = answer(kit, model, max_iterations=2, knowledge_prompting=False)

    assert result.text == "Tarsk"
    assert result.metadata["iterations"] == 3  # two Main calls with the iteration instruction, then the last
    assert result.metadata["stop_reason"] == "max_iterations"
    # iteration 2 learnt nothing new, so its Main verdict is the first one, reused without a call
    assert [m for m in model.modules() if m.endswith("main")] == ["main", "final_main"]
    mains = [s for s in trace.steps if s.extra.get("module") in ("main", "final_main")]
    assert [(s.kind, s.extra["iteration"], s.extra["reused"]) for s in mains] == [
        ("reason", 1, False), ("reason", 2, True), ("read", 3, False)]
    assert (mains[-1].extra["module"], mains[-1].output) == ("final_main", "Tarsk")


def test_main_is_asked_again_without_new_information_when_told_to(kit: SimpleNamespace) -> None:
    handlers = kit.two_hop_handlers()
    handlers["main"] = lambda text: kit.UNANSWERABLE
    queries = iter(["Who founded the ironworks?", "Where was Ada born?"])
    handlers["query"] = lambda text: next(queries)
    model = kit.ModuleModel(handlers)
    answer(kit, model, max_iterations=2, knowledge_prompting=False, reuse_main_without_new_information=False)
    assert [m for m in model.modules() if m.endswith("main")] == ["main", "main", "final_main"]


def test_final_prompt_is_the_final_instruction(kit: SimpleNamespace) -> None:
    handlers = kit.two_hop_handlers()
    model = kit.ModuleModel(handlers)
    answer(kit, model, max_iterations=1, last_main="iteration_t")
    assert model.modules() == ["leaf", "final_main"]
    assert model.llm.prompts[-1].startswith(prompts.FINAL_MAIN_INSTRUCTION + "\n\nInformation: ")


def test_yes_no_questions_get_the_strategyqa_instruction_and_yes_or_no(kit: SimpleNamespace) -> None:
    handlers = kit.two_hop_handlers()
    handlers["main"] = lambda text: '{"answer": {"text": "Yes.", "confidence": 4}, "explanation": "e"}'
    model = kit.ModuleModel(handlers)
    result, _ = answer(kit, model, answer_format="yes_no")
    assert result.text == "yes"
    main_prompt = model.llm.prompts[1]
    assert main_prompt.startswith("Given the following Question and Information, " + prompts.YES_NO_SENTENCE)
    assert prompts.MAIN_INSTRUCTION in main_prompt

    handlers["main"] = lambda text: kit.UNANSWERABLE
    handlers["final_main"] = lambda text: '{"answer": {"text": "False", "confidence": 2}, "explanation": "e"}'
    model = kit.ModuleModel(handlers)
    result, _ = answer(kit, model, answer_format="yes_no", max_iterations=1)
    assert result.text == "no"
    assert model.llm.prompts[-1].startswith(prompts.FINAL_YES_NO_INSTRUCTION)


def test_the_leaf_reads_at_most_the_configured_number_of_passages(kit: SimpleNamespace) -> None:
    from hopkit.records import Paragraph

    towns = tuple(Paragraph(100 + i, f"Ironworks {i}", f"Velmora Ironworks site {i} was founded by Ada Quill.")
                  for i in range(8))
    model = kit.ModuleModel(kit.two_hop_handlers())
    reranker = kit.relevance_by_title({kit.QUESTION.text: tuple(p.title for p in towns)})
    for limit in (5, 2):
        model.calls.clear()
        result, trace = answer(kit, model, corpus=towns, reranker=reranker, hits_per_query=50,
                               passages_per_leaf_call=limit, max_iterations=1, last_main="iteration_t")
        leaf = model.prompts_of("leaf")[0]
        assert leaf.count("Passage ") == limit and f"Passage {limit - 1}: " in leaf
        assert len(result.chunk_ids) == limit
        assert trace.steps[1].kind == "extract" and len(trace.steps[1].paragraph_ids) == limit


def test_a_fact_its_passages_do_not_entail_is_dropped(kit: SimpleNamespace) -> None:
    model = kit.ModuleModel(kit.two_hop_handlers())
    result, trace = answer(kit, model, entailment=0.1, max_iterations=1)
    assert result.metadata["known_information"] == []
    assert model.prompts_of("final_main")[0].startswith("Information: None\n")
    verify = next(s for s in trace.steps if s.kind == "verify")
    assert verify.output is False and verify.scores == {"entailment": 0.1}
    leaf = next(s for s in trace.steps if s.kind == "extract")
    assert leaf.output[0]["outcome"] == "not_entailed"
    assert trace.citations == ()


def test_without_the_nli_check_every_supported_fact_is_kept(kit: SimpleNamespace) -> None:
    model = kit.ModuleModel(kit.two_hop_handlers())
    result, trace = answer(kit, model, entailment=0.1, max_iterations=1, nli_check=False, last_main="iteration_t")
    assert result.metadata["known_information"] == ["Velmora Ironworks was founded by Ada Quill"]
    assert not [s for s in trace.steps if s.kind == "verify"]


def test_a_fact_citing_no_shown_passage_is_dropped(kit: SimpleNamespace) -> None:
    handlers = kit.two_hop_handlers()
    handlers["leaf"] = lambda text: '{"useful_information": [{"info": "Invented", "support_passages": [7]}]}'
    model = kit.ModuleModel(handlers)
    result, trace = answer(kit, model, max_iterations=1)
    assert result.metadata["known_information"] == []
    assert trace.steps[1].output[0]["outcome"] == "no_valid_support"


def test_the_example_in_docs_traces_md_is_this_trace(kit: SimpleNamespace) -> None:
    import json
    from pathlib import Path

    docs = Path(__file__).resolve().parents[3] / "docs" / "traces.md"
    text = docs.read_text(encoding="utf-8")
    block = text.split("<!-- migres-example-trace -->")[1].split("<!-- /migres-example-trace -->")[0]
    documented = json.loads(block.strip().removeprefix("```json").removesuffix("```"))
    _, trace = answer(kit, kit.ModuleModel(kit.two_hop_handlers()), hits_per_query=2)
    assert trace.to_json() == documented


def test_llm_judges_need_a_model_that_scores_and_say_so_when_warming_up(kit: SimpleNamespace) -> None:
    from hopkit.errors import LLMError
    from hopkit.judges.llm_yes_no import LLMEntailmentJudge, LLMRelevanceJudge
    from hopkit.llm.fake import ScriptedLLM
    from hopkit.methods.migres.method import MIGRES
    from hopkit.retrieval.bm25 import BM25Retriever

    retriever = BM25Retriever.build(kit.CORPUS)
    with pytest.raises(LLMError, match="scoring.*the LLM relevance judge"):
        MIGRES(ScriptedLLM([]), retriever).warm_up()
    method = MIGRES(ScriptedLLM([], scores={" yes": 0.0, " no": -1.0}), retriever)
    method.warm_up()
    assert isinstance(method.reranker, LLMRelevanceJudge) and isinstance(method.nli, LLMEntailmentJudge)


def test_the_passages_the_reranker_scored_are_counted_and_traced(kit: SimpleNamespace) -> None:
    result, trace = answer(kit, kit.ModuleModel(kit.two_hop_handlers()))
    retrievals = [s for s in trace.steps if s.kind == "retrieve"]
    # BM25 finds two passages for each query; the second query's other one was used twice already
    assert [len(s.paragraph_ids) for s in retrievals] == [2, 2]
    assert [s.extra["reranked"] for s in retrievals] == [2, 1]
    assert all("rerank_top" not in s.extra for s in retrievals)
    assert result.metadata["reranked_passages"] == 3


def test_rerank_top_scores_only_the_best_bm25_hits_of_each_query(kit: SimpleNamespace) -> None:
    reranker = kit.two_hop_reranker()
    result, trace = answer(kit, kit.ModuleModel(kit.two_hop_handlers()), reranker=reranker, rerank_top=1)
    assert result.text == "Tarsk"  # the relevant passage of each query is its best BM25 hit
    first, second = [s for s in trace.steps if s.kind == "retrieve"]
    assert [(s.extra["reranked"], s.extra["rerank_top"]) for s in (first, second)] == [(1, 1), (1, 1)]
    assert result.metadata["reranked_passages"] == 2
    assert first.output["dropped"] == [{"paragraph_id": first.paragraph_ids[1], "relevance": None,
                                        "outcome": "not_reranked"}]
    assert [d["outcome"] for d in second.output["dropped"]] == ["used_twice"]
    passage_calls = [texts for query, texts in reranker.calls if len(texts) and texts[0].endswith(
        tuple(p.text for p in kit.CORPUS))]
    assert [len(texts) for texts in passage_calls] == [1, 1]
