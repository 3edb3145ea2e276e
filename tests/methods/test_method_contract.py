"""What every method owes the runner, checked over every method.

Every method of the registry (:mod:`hopkit.methods.registry`, hopkit's own and those of
installed packages' entry points) is checked, built by its entry from the scripted model
and the real BM25 index of the tiny corpus below; a new method joins by being registered.
Each method is run
through the runner into a real SQLite store, then checked: it is a ``Method``, its trace
is JSON with a typed trace of known step kinds, each step reading as one of the payload
types its registry entry names, every paragraph id it reports is in the
corpus, its model calls are counted, and a rerun resumes without asking anything again.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable

import pytest

from hopkit.judges.protocol import SpanAnswer
from hopkit.judges.scripted import ScriptedAnswer, ScriptedEntailment, ScriptedRelevance
from hopkit.llm.fake import ScriptedLLM
from hopkit.llm.meter import MeteredLLM
from hopkit.methods.alce import ALCE
from hopkit.methods.migres import MIGRES
from hopkit.methods.protocol import Method
from hopkit.methods.registry import MethodParts, declares_label, entries
from hopkit.methods.searchain import SearChain
from hopkit.records import Corpus, Query
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.pipelines.runner import run_method
from hopkit.store.connection import DBConnection
from hopkit.store.records import RunSpec
from hopkit.store.store import Store
from hopkit.traces import KINDS, Trace
from tests import fictional_corpus

pytestmark = pytest.mark.unit

PARAGRAPHS = fictional_corpus.paragraphs(4, first_id=10)
QUERIES = (
    Query("q1", "Where was the founder of Velmora Ironworks born?", ("Tarsk",)),
    Query("q2", "Who founded Velmora Ironworks?", ("Ada Quill",)),
    Query("q3", "Where does the Orl River flow?", ("the Grey Sea",)),
)


def answering(prompt: str) -> str:
    """A model that reasons one sentence, then answers (any prompt, any method; ReAct's turns end with
    its Finish action)."""
    turn = re.search(r"Thought (\d+):$", prompt)
    if turn:
        return f" Ada Quill founded Velmora Ironworks.\nAction {turn.group(1)}: Finish[Tarsk]"
    if prompt.rstrip().endswith("A:"):
        return "Ada Quill founded Velmora Ironworks. So the answer is: Tarsk."
    return "So the answer is: Tarsk."


def confident(prompt: str, continuation: str) -> list[tuple[str, float]]:
    """Every word of a continuation a sure token (FLARE checks its look-ahead sentences with them)."""
    return [(word, -0.01) for word in re.findall(r"\s*\S+|\s+$", continuation)]


# Beside each method's defaults: a K and a number of rounds that fit the four-paragraph corpus.
CONTRACT_OPTIONS: dict[str, dict[str, Any]] = {
    "oner": {"k": 2},
    "ircot": {"k_per_step": 2, "max_steps": 3},
    "migres": {"hits_per_query": 2, "max_iterations": 2},
}

# MIGRES's and SearChain's judges are scripted (test doubles at the LLM boundary), not built on the model.
JUDGED: dict[str, Callable[[ScriptedLLM | MeteredLLM, BM25Retriever, Any], Method]] = {
    "migres": lambda llm, retriever, options: MIGRES(llm, retriever, options,
                                                     reranker=ScriptedRelevance({}, default=5.0),
                                                     nli=ScriptedEntailment({}, default=1.0)),
    "searchain": lambda llm, retriever, options: SearChain(llm, retriever, options,
                                                           reader=ScriptedAnswer({}, default=SpanAnswer("", 0.0))),
    "alce": lambda llm, retriever, options: ALCE(llm, retriever, options, reranker=ScriptedRelevance({}, default=5.0)),
}


def build(name: str, llm: ScriptedLLM | MeteredLLM, retriever: BM25Retriever) -> Method:
    """The method registered as ``name``, built by its entry (with scripted judges where it has some)."""
    entry = entries()[name]
    options = entry.as_run(entry.options(**CONTRACT_OPTIONS.get(name, {})))
    if name in JUDGED:
        return JUDGED[name](llm, retriever, options)
    return entry.build(MethodParts(llm, retriever, options, dataset="toy", paragraphs=lambda: PARAGRAPHS))


@pytest.fixture(params=list(entries()))
def method_name(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def run_twice(tmp_path: Path, name: str) -> tuple[Store, str, ScriptedLLM, list[int]]:
    store = Store(DBConnection(f"sqlite:///{tmp_path / 'contract.db'}").get_session_factory())
    store.add_corpus(Corpus("toy", PARAGRAPHS, QUERIES))
    retriever = BM25Retriever.build(PARAGRAPHS)
    scripted = ScriptedLLM(answering, token_scores=confident, entropies=0.5)
    method = build(name, MeteredLLM(scripted), retriever)
    spec = RunSpec(name=f"contract-{name}", method=name, dataset="toy", config={"method": name})
    first = run_method(method, QUERIES, store, spec, progress=False)
    asked = len(scripted.prompts) + len(scripted.scored)  # generations, and scorings (FLARE's checks)
    second = run_method(build(name, MeteredLLM(scripted), retriever), QUERIES, store, spec, progress=False)
    return store, first.run_id, scripted, [first.finished, first.failed, asked, second.already_done,
                                           second.finished, len(scripted.prompts) + len(scripted.scored)]


def test_every_method_keeps_the_contract(tmp_path: Path, method_name: str) -> None:
    method = build(method_name, ScriptedLLM(answering, token_scores=confident, entropies=0.5), BM25Retriever.build(PARAGRAPHS))
    assert isinstance(method, Method) and isinstance(method.name, str) and method.name

    store, run_id, scripted, counts = run_twice(tmp_path, method_name)
    finished, failed, asked, already_done, refinished, asked_in_total = counts
    assert (finished, failed) == (len(QUERIES), 0)
    assert (already_done, refinished, asked_in_total) == (len(QUERIES), 0, asked)  # resumed, nothing redone

    corpus_ids = {p.id for p in PARAGRAPHS}
    results = store.results(run_id)
    assert len(results) == len(QUERIES)
    for result in results:
        assert result.ok and result.prediction == "Tarsk"
        json.dumps(result.trace, allow_nan=False)  # the stored trace is plain JSON
        trace = Trace.from_result_trace(result.trace)
        assert trace.steps, f"{method_name} recorded no step"
        assert {step.kind for step in trace.steps} <= set(KINDS)
        assert trace.steps[-1].kind in {"read", "extract"}
        entry = entries()[method_name]
        assert all(entry.payload(step) is not None for step in trace.steps), "a step without a payload type"
        assert entry.summary_type is not None, f"{method_name} declares no summary type"
        entry.summary_type.from_result_trace(result.trace)  # the stored summary reads as the declared type
        reported = set(result.chunk_ids) | {i for step in trace.steps for i in step.paragraph_ids}
        assert reported <= corpus_ids, f"{method_name} reported ids outside the corpus: {reported - corpus_ids}"
        assert result.usage.llm_calls >= 1 and result.usage.prompt_tokens > 0
        assert sum(step.llm_calls for step in trace.steps) == result.usage.llm_calls
        calling = {name for name, entry in result.usage.components.items() if entry.llm_calls}
        assert all(declares_label(method_name, name) for name in calling), \
            f"{method_name}'s model calls are not all under a model-call part it declares: {sorted(calling)}"
    assert sum(r.usage.llm_calls for r in results) == asked  # every model call is counted


@pytest.mark.parametrize("reply", ["", "So the answer is:", "[Query 1]:", "The answer is:", '{"answer": {"text": ""}}'])
def test_an_empty_or_cue_only_final_answer_is_a_failed_question(tmp_path: Path, method_name: str, reply: str) -> None:
    """Issue 28 item 3: SearChain stored '[Query 1]:' (its own prompt's text) for an empty reply, and MIGRES
    'The answer is:' (its own cue), as answers; every method must record EmptyAnswerError instead."""
    store = Store(DBConnection(f"sqlite:///{tmp_path / 'blank.db'}").get_session_factory())
    store.add_corpus(Corpus("toy", PARAGRAPHS, QUERIES))
    method = build(method_name, MeteredLLM(ScriptedLLM(lambda prompt: reply, token_scores=confident, entropies=0.5)),
                   BM25Retriever.build(PARAGRAPHS))
    spec = RunSpec(name=f"blank-{method_name}", method=method_name, dataset="toy", config={"reply": reply})
    outcome = run_method(method, QUERIES, store, spec, progress=False)
    assert (outcome.finished, outcome.failed) == (0, len(QUERIES))
    for result in store.results(outcome.run_id):
        assert result.error is not None and result.error.startswith("EmptyAnswerError"), (result.prediction, result.error)
        assert store.run(outcome.run_id).finished == 0
