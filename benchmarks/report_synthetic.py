"""A synthetic store for the report benchmark: questions, a corpus and five runs' scripted results.

No model runs: each run's results are made up with a fixed seed, in the shapes the methods record
(``docs/traces.md``): IRCoT's chain of retrievals and reasoning steps, OneR's one retrieval, NoR's
reading, MIGRES's filtered retrievals and extracted facts, SearChain's rounds of nodes. They go
into the store through ``Store.record_result``, as the runner writes them.
"""

from __future__ import annotations

import random
from typing import Any, Callable

from hopkit.records import Corpus, Paragraph, Query
from hopkit.store.records import QueryResult, RunSpec
from hopkit.store.store import Store
from hopkit.usage import Usage

__all__ = ["DATASET", "RUNS", "fill_store", "synthetic_corpus"]

DATASET = "synthetic"
PARAGRAPHS_PER_QUESTION = 6
_WORDS = ("river town founded company born province album performer railway bridge church museum "
          "industrialist mayor brewery glassworks foundry assembly capital harbour valley station").split()
_NAMES = ("Velmora Orrimond Pellander Halvicke Quorrin Tolloway Scarrowby Greyhallow Brannock Caddow "
          "Hollowmere Dunmarrow Sallowhythe Kessary Quillstead Tarsk Orl Marrick").split()

Trace = dict[str, Any]


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS + _NAMES) for _ in range(words)).capitalize() + "."


def synthetic_corpus(n_questions: int, seed: int = 0) -> Corpus:
    """``n_questions`` questions, each with six paragraphs of its own (the first two gold).

    Args:
        n_questions: how many questions.
        seed: the random seed.

    Returns:
        The corpus (paragraph ids from 0).
    """
    rng = random.Random(seed)
    paragraphs: list[Paragraph] = []
    queries: list[Query] = []
    for i in range(n_questions):
        first = len(paragraphs)
        for j in range(PARAGRAPHS_PER_QUESTION):
            title = f"{rng.choice(_NAMES)} {rng.choice(_WORDS).title()} {i}-{j}"
            paragraphs.append(Paragraph(first + j, title, _text(rng, rng.randint(60, 110))))
        answer = f"{rng.choice(_NAMES)} {rng.choice(['Cross', 'Ford', 'Hill', 'Bay'])}"
        queries.append(Query(f"q{i:05d}", f"Where was the founder of {rng.choice(_NAMES)} "
                             f"{rng.choice(_WORDS)} number {i} born?", (answer,), (first, first + 1)))
    return Corpus(DATASET, tuple(paragraphs), tuple(queries))


def _step(sid: int, kind: str, parent: int | None, **fields: Any) -> dict[str, Any]:
    step = {"id": sid, "parent": parent, "kind": kind, "input": None, "output": None, "paragraph_ids": [],
            "scores": [], "llm_calls": 0, "extra": {}}
    step.update(fields)
    return step


def _typed(steps: list[dict[str, Any]], citations: list[dict[str, Any]] | None = None) -> Trace:
    return {"typed_trace": {"schema_version": 1, "steps": steps, "citations": citations or []}}


def _hits(rng: random.Random, own: list[int], n_paragraphs: int, k: int) -> list[int]:
    pool = own + [rng.randrange(n_paragraphs) for _ in range(k)]
    return list(dict.fromkeys(rng.sample(pool, k)))


def _ircot(rng: random.Random, q: Query, own: list[int], n: int, answer: str) -> Trace:
    steps, kept = [], []
    sentence = q.text
    for hop in range(3):
        hits = _hits(rng, own, n, 4)
        dropped = [{"paragraph_id": pid, "reason": "duplicate"} for pid in hits if pid in kept]
        new = [pid for pid in hits if pid not in kept]
        kept += new
        steps.append(_step(len(steps) + 1, "retrieve", len(steps) or None, input=sentence,
                           output={"kept": new, "dropped": dropped, "skipped": None}, paragraph_ids=hits,
                           scores=[round(rng.uniform(1, 9), 3) for _ in hits], extra={"k": 4}))
        sentence = _text(rng, 12) if hop < 2 else f"So the answer is: {answer}."
        steps.append(_step(len(steps) + 1, "reason", len(steps), output=sentence, paragraph_ids=list(kept),
                           llm_calls=1, extra={"generation": sentence + " " + _text(rng, 6), "demonstrations": 2,
                                               "stop_reason": "answer" if hop == 2 else None}))
    steps.append(_step(len(steps) + 1, "read", len(steps), input=q.text, output=answer, paragraph_ids=list(kept),
                       llm_calls=1, extra={"generation": answer, "reader": "direct", "context": "own"}))
    return {"cot_sentences": [s["output"] for s in steps if s["kind"] == "reason"], **_typed(steps)}


def _oner(rng: random.Random, q: Query, own: list[int], n: int, answer: str) -> Trace:
    hits = _hits(rng, own, n, 5)
    return _typed([_step(1, "retrieve", None, input=q.text, paragraph_ids=hits,
                         scores=[round(rng.uniform(1, 9), 3) for _ in hits], extra={"k": 5}),
                   _step(2, "read", 1, input=q.text, output=answer, paragraph_ids=hits, llm_calls=1,
                         extra={"generation": answer})])


def _nor(rng: random.Random, q: Query, own: list[int], n: int, answer: str) -> Trace:
    return _typed([_step(1, "read", None, input=q.text, output=answer, llm_calls=1, extra={"generation": answer})])


def _migres(rng: random.Random, q: Query, own: list[int], n: int, answer: str) -> Trace:
    hits = _hits(rng, own, n, 2)
    fact = _text(rng, 8)
    outcome = {"kept": [{"paragraph_id": hits[0], "relevance": 5.0, "outcome": "kept_whole"}],
               "dropped": [{"paragraph_id": pid, "relevance": -2.0, "outcome": "below_threshold"}
                           for pid in hits[1:]], "skipped": None}
    steps = [_step(1, "retrieve", None, input=q.text, output=outcome, paragraph_ids=hits,
                   scores=[1.5] * len(hits), extra={"module": "retriever", "k": 2, "threshold": 3.0}),
             _step(2, "extract", 1, input=q.text, paragraph_ids=hits[:1], llm_calls=1,
                   output=[{"info": fact, "support_passages": [0], "paragraph_ids": hits[:1], "entailment": 0.9,
                            "outcome": "learnt"}], extra={"module": "leaf", "generations": [fact]}),
             _step(3, "verify", 2, input=fact, output=True, paragraph_ids=hits[:1], scores={"entailment": 0.9},
                   extra={"module": "nli", "probabilities": [0.9], "judge": "scripted"}),
             _step(4, "read", 2, input=q.text, output=answer, scores={"confidence": 4.0}, llm_calls=1,
                   extra={"module": "main", "iteration": 1, "known_facts": 1, "explanation": fact,
                          "generations": [answer], "reused": False})]
    return {"iterations": 1, **_typed(steps, [{"step": 2, "claim": fact, "paragraph_ids": hits[:1], "score": 0.9}])}


def _searchain(rng: random.Random, q: Query, own: list[int], n: int, answer: str) -> Trace:
    node = {"index": 1, "query": _text(rng, 8), "answer": answer, "unsolved": False, "complete": True}
    hit = _hits(rng, own, n, 1)
    steps = [_step(1, "reason", None, output={"nodes": [node], "final_content": f"So the final answer is {answer}."},
                   llm_calls=1, extra={"round": 1, "generation": f"[Query 1]: {node['query']}", "attempts": 1}),
             _step(2, "retrieve", 1, input=node["query"], paragraph_ids=hit, scores=[2.0],
                   extra={"round": 1, "node": 1, "k": 1}),
             _step(3, "verify", 2, input={"query": node["query"], "answer": answer, "unsolved": False},
                   output={"verdict": "kept", "reader_answer": answer, "confidence": 1.0, "path_answer": answer},
                   paragraph_ids=hit, scores={"confidence": 1.0}, extra={"round": 1, "node": 1, "feedback": None}),
             _step(4, "read", 1, input=q.text, output=answer, paragraph_ids=hit, llm_calls=1,
                   extra={"generation": f"{answer} [1].", "final_content": f"{answer} [1].",
                          "traced": f"{answer} [1].\n[1] {node['query']}",
                          "marks": [{"number": 1, "paragraph_id": hit[0], "valid": True}]})]
    return _typed(steps, [{"step": 4, "claim": answer, "paragraph_ids": hit, "score": None}])


#: (name, method, share of questions answered right, results' trace maker, retrieves)
RUNS: tuple[tuple[str, str, float, Callable[..., Trace], bool], ...] = (
    ("ircot", "ircot", 0.45, _ircot, True), ("oner", "oner", 0.35, _oner, True), ("nor", "nor", 0.2, _nor, False),
    ("migres", "migres", 0.4, _migres, True), ("searchain", "searchain", 0.38, _searchain, True))


def _usage(rng: random.Random, calls: int) -> Usage:
    usage = Usage()
    prompt, completion, cached = rng.randint(300, 1500), rng.randint(5, 40), rng.randint(0, 300)
    for _ in range(calls):
        usage.add_llm(prompt, completion, rng.uniform(0.5, 3.0), cached_prompt_tokens=cached)
    usage.add_call("retrieval", rng.uniform(0.001, 0.02))
    usage.total_seconds = usage.component_seconds + rng.uniform(0.01, 0.2)
    return usage


def fill_store(store: Store, corpus: Corpus, n_runs: int, seed: int = 0) -> list[str]:
    """Store ``corpus`` and the scripted results of the first ``n_runs`` of :data:`RUNS` on it.

    Args:
        store: an empty store.
        corpus: the corpus of :func:`synthetic_corpus`.
        n_runs: how many runs (at most ``len(RUNS)``).
        seed: the random seed of the answers and traces.

    Returns:
        The run ids.
    """
    store.add_corpus(corpus)
    rng = random.Random(seed)
    n = len(corpus.paragraphs)
    run_ids = []
    for name, method, right, make, retrieves in RUNS[:n_runs]:
        config: dict[str, Any] = {"synthetic": True, **({"retrieval": "bm25"} if retrieves else {})}
        run = store.ensure_run(RunSpec(name, method, DATASET, config))
        for i, q in enumerate(corpus.queries):
            answer = q.answers[0] if rng.random() < right else rng.choice(_NAMES)
            own = list(range(i * PARAGRAPHS_PER_QUESTION, (i + 1) * PARAGRAPHS_PER_QUESTION))
            trace = make(rng, q, own, n, answer)
            steps = trace["typed_trace"]["steps"]
            chunk_ids = tuple(dict.fromkeys(pid for s in steps if s["kind"] == "retrieve" for pid in s["paragraph_ids"]))
            store.record_result(run.run_id, QueryResult(q.id, answer, chunk_ids if retrieves else (), trace,
                                                        _usage(rng, sum(s["llm_calls"] for s in steps))))
        run_ids.append(run.run_id)
    return run_ids
