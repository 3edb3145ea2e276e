"""MIGRES's steps as its typed trace records them (schema: ``docs/traces.md``, MIGRES section).

MIGRES uses the shared kinds, naming its module in ``extra.module``; each step names the
one before it as its parent, except ``verify`` steps, children of their ``extract``::

    retrieve (retriever + knowledge filter, one per query) -> [reason (knowledge)]
      -> extract (leaf) -> verify (NLI, one per fact) ...
      -> reason (main, unanswerable) -> reason (query) -> retrieve ... -> read (main answers)

* ``retrieve``: input the query; ``paragraph_ids``/``scores`` the BM25 hits; output
  ``{"kept": [...], "dropped": [...], "skipped": null}``, each entry ``{"paragraph_id",
  "relevance", "outcome"}`` from :class:`~hopkit.methods.migres.filter.KnowledgeFilter`;
  extra ``reranked``, the passages the relevance judge scored, and ``rerank_top`` when set.
* ``reason`` with ``module`` "knowledge": input the query, output the model's knowledge.
* ``extract`` (Leaf Module): input the leaf's question; ``paragraph_ids`` the corpus
  passages shown; output one entry per extracted fact; extra ``passages`` (index, id,
  query, relevance, whole) and ``generations``. A kept fact is cited with :func:`cite`.
* ``verify`` (NLI check): input the fact, output entailed or not, ``paragraph_ids`` the
  cited passages, ``scores`` ``{"entailment": p}``.
* ``reason`` with ``module`` "main" (unanswerable) or "query"; ``read`` with module "main"
  or "final_main" for the answer.
* A module whose response could not be read twice: its kind, output null, extra
  ``failed: true``, ``error`` and both ``generations``.
"""

from __future__ import annotations

from typing import Any, Sequence

from hopkit.methods.migres.filter import Knowledge
from hopkit.methods.migres.modules import Asked
from hopkit.methods.migres.responses import MainVerdict
from hopkit.records import ScoredParagraph
from hopkit.traces import cite, record_step

_KEPT = ("kept_whole", "kept_sentences")


def record_retrieval(query: str, hits: Sequence[ScoredParagraph], outcomes: Sequence[dict[str, Any]], k: int,
                     threshold: float, parent: int | None, *, rerank_top: int | None = None) -> int | None:
    """One query's retrieval and what the knowledge filter did with each hit (how many it scored)."""
    output = {"kept": [o for o in outcomes if o["outcome"] in _KEPT],
              "dropped": [o for o in outcomes if o["outcome"] not in _KEPT], "skipped": None}
    extra: dict[str, Any] = {"module": "retriever", "k": k, "threshold": threshold,
                             "reranked": sum(1 for o in outcomes if o["relevance"] is not None)}
    if rerank_top is not None:
        extra["rerank_top"] = rerank_top
    return record_step("retrieve", parent=parent, input=query, output=output,
                       paragraph_ids=[hit.id for hit in hits], scores=[float(hit.score) for hit in hits],
                       extra=extra)


def record_knowledge(query: str, text: str, parent: int | None) -> int | None:
    """LLM knowledge prompting, when no passage passed the filter."""
    return record_step("reason", parent=parent, input=query, output=text, extra={"module": "knowledge"})


def record_failure(kind: str, module: str, asked: Asked[Any], parent: int | None, **extra: Any) -> int | None:
    """A module whose response could not be read, even when asked once more."""
    return record_step(kind, parent=parent, output=None,
                       extra={"module": module, "failed": True, "error": asked.error,
                              "generations": list(asked.generations), **extra})


def record_leaf(question: str, shown: Sequence[Knowledge], facts: Sequence[dict[str, Any]],
                generations: Sequence[str], parent: int | None) -> int | None:
    """The Leaf Module's call: the knowledge shown and each fact with its fate."""
    passages = [{"index": i, "paragraph_id": k.paragraph_id, "query": k.query, "relevance": k.relevance,
                 "whole": k.whole} for i, k in enumerate(shown)]
    return record_step("extract", parent=parent, input=question, output=list(facts),
                       paragraph_ids=[k.paragraph_id for k in shown if k.paragraph_id is not None],
                       extra={"module": "leaf", "passages": passages, "generations": list(generations)})


def record_verification(leaf: int | None, fact: str, paragraph_ids: Sequence[int], probabilities: Sequence[float],
                        entailed: bool, judge: str) -> None:
    """The NLI check of one fact against the passages it cites (a child of the leaf step)."""
    record_step("verify", parent=leaf, input=fact, output=entailed, paragraph_ids=paragraph_ids,
                scores={"entailment": max(probabilities, default=0.0)},
                extra={"module": "nli", "probabilities": list(probabilities), "judge": judge})


def record_citation(leaf: int | None, fact: str, paragraph_ids: Sequence[int], score: float | None) -> None:
    """A kept fact, citing its corpus passages."""
    if leaf is not None and paragraph_ids:
        cite(leaf, paragraph_ids, claim=fact, score=score)


def record_main(verdict: MainVerdict, asked: Asked[MainVerdict], question: str, facts: int, iteration: int,
                final: bool, answered: bool, parent: int | None, *, reused: bool = False) -> int | None:
    """The Main Module's verdict: ``read`` when it answers, else ``reason``."""
    extra = {"module": "final_main" if final else "main", "iteration": iteration, "known_facts": facts,
             "explanation": verdict.explanation, "generations": list(asked.generations), "reused": reused}
    if answered:
        return record_step("read", parent=parent, input=question, output=verdict.answer,
                           scores={"confidence": verdict.confidence}, extra=extra)
    output = {"answer": verdict.answer, "confidence": verdict.confidence,
              "missing_information": verdict.missing_information}
    return record_step("reason", parent=parent, input=question, output=output,
                       scores={"confidence": verdict.confidence}, extra=extra)


def record_queries(missing: str, new: Sequence[str], repeated: Sequence[str], dropped: Sequence[str],
                   generations: Sequence[str], parent: int | None) -> int | None:
    """The Query Generator: the new queries kept, those repeating earlier ones, those over the limit."""
    return record_step("reason", parent=parent, input=missing, output=list(new),
                       extra={"module": "query", "repeated": list(repeated), "over_limit": list(dropped),
                              "generations": list(generations)})
