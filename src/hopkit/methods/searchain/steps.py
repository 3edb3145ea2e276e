"""SearChain's steps as its typed trace records them (see ``docs/traces.md``).

The steps form the Tree-of-Reasoning::

    reason (round 1) -> retrieve -> verify          one retrieve and verify per node processed
                     -> verify (duplicate | not_reached)
    reason (round 2, parent: the verify step of the node fed back in round 1) -> ...
    read (tracing, parent: the last round's reason step) | extract

* ``reason``: one round's chain. Input the feedback that started it (null in round 1);
  output the chain as parsed (``{"nodes": [{"index", "query", "answer", "unsolved",
  "complete"}], "final_content"}``), or null when it could not be read twice; extra
  ``round``, ``generation`` (the raw text, with the first query's tag the prompt ended
  in), ``attempts`` and, for an unreadable chain, ``error`` and every attempt's text.
* ``retrieve``: input the node's query; the passages returned with their scores;
  extra ``round``, ``node`` (its position in the chain, from 1) and ``k``.
* ``verify``: input ``{"query", "answer", "unsolved"}`` (the model's node); output
  ``{"verdict", "reader_answer", "confidence", "path_answer"}``; ``paragraph_ids`` the
  passage read (d_i) and ``scores`` ``{"confidence": f}`` when the reader gave a finite
  one; extra ``round``, ``node``, ``feedback`` (the prompt sent back, or null), and for a
  duplicate ``duplicate_of`` (the verify step of the query it repeats) and ``similarity``.
* ``read``: the tracing call. Input the question; output the answer; ``paragraph_ids``
  the passages the marks resolve to; extra ``generation``, ``final_content``,
  ``traced`` (the final content followed by its passages), ``pairs`` (the correct
  path), ``marks`` (``[{"number", "paragraph_id", "valid"}]``) and ``traceability``
  (the scores of the metadata's ``traceability``). Each marked sentence is a citation of this step.
* ``extract``: no tracing call was made (no chain could be read, or the chain had no
  node): the answer taken from the text; extra ``source``.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from hopkit.judges.protocol import SpanAnswer
from hopkit.methods.searchain.feedback import Verdict
from hopkit.methods.searchain.tracing import Mark, Statement
from hopkit.parsing.chain import Chain, ChainNode
from hopkit.records import ScoredParagraph
from hopkit.traces import cite, record_step


def chain_json(chain: Chain) -> dict[str, Any]:
    """A parsed chain as JSON."""
    return {"nodes": [{"index": n.index, "query": n.query, "answer": n.answer, "unsolved": n.unsolved,
                       "complete": n.complete} for n in chain.nodes],
            "final_content": chain.final_content}


def record_chain(round_: int, feedback: str | None, generation: str, chain: Chain, attempts: int,
                 parent: int | None) -> int | None:
    """A round's chain (Algorithm 1's ``ChainGenerate``)."""
    return record_step("reason", parent=parent, input=feedback, output=chain_json(chain),
                       extra={"round": round_, "generation": generation, "attempts": attempts})


def record_unreadable_chain(round_: int, feedback: str | None, generations: Sequence[str], error: str,
                            parent: int | None) -> int | None:
    """A round whose chain could not be read, after asking once more: a failed step keeping the raw text."""
    return record_step("reason", parent=parent, input=feedback, output=None,
                       extra={"round": round_, "generation": generations[-1], "attempts": len(generations),
                              "generations": list(generations), "error": error})


def record_retrieval(round_: int, position: int, query: str, hits: Sequence[ScoredParagraph], k: int,
                     parent: int | None) -> int | None:
    """The retrieval for one node (``Retrieval(q_i)``)."""
    return record_step("retrieve", parent=parent, input=query, paragraph_ids=[hit.id for hit in hits],
                       scores=[float(hit.score) for hit in hits], extra={"round": round_, "node": position, "k": k})


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def record_verdict(round_: int, node: ChainNode, position: int, verdict: Verdict, reading: SpanAnswer | None,
                   paragraph_id: int | None, path_answer: str, feedback: str | None,
                   parent: int | None) -> int | None:
    """The reader's answer on a node's passage and what IR decided (``Reader(q_i, d_i)`` and the rules)."""
    confidence = _finite(reading.confidence) if reading is not None else None
    return record_step(
        "verify", parent=parent, input={"query": node.query, "answer": node.answer, "unsolved": node.answer is None},
        output={"verdict": verdict, "reader_answer": reading.text if reading is not None else None,
                "confidence": confidence, "path_answer": path_answer},
        paragraph_ids=[paragraph_id] if paragraph_id is not None else [],
        scores={"confidence": confidence} if confidence is not None else {},
        extra={"round": round_, "node": position, "feedback": feedback})


def record_skipped(round_: int, node: ChainNode, position: int, verdict: Verdict, parent: int | None, *,
                   duplicate_of: int | None = None, similarity: float | None = None) -> int | None:
    """A node IR did not process: its query repeats a processed one, or it came after the node fed back."""
    extra: dict[str, Any] = {"round": round_, "node": position, "feedback": None}
    if verdict == "duplicate":
        extra.update(duplicate_of=duplicate_of, similarity=similarity)
    return record_step("verify", parent=parent,
                       input={"query": node.query, "answer": node.answer, "unsolved": node.answer is None},
                       output={"verdict": verdict, "reader_answer": None, "confidence": None,
                               "path_answer": None}, extra=extra)


def record_tracing(question: str, answer: str, generation: str, final_content: str, traced: str,
                   pairs: Sequence[tuple[str, str]], marks: Sequence[Mark], found: Sequence[Statement],
                   scores: Mapping[str, float | int | None], parent: int | None) -> int | None:
    """The tracing call, and a citation for each marked sentence of the final content."""
    cited = list(dict.fromkeys(m.paragraph_id for m in marks if m.paragraph_id is not None))
    step = record_step("read", parent=parent, input=question, output=answer, paragraph_ids=cited,
                       extra={"generation": generation, "final_content": final_content, "traced": traced,
                              "pairs": [list(pair) for pair in pairs],
                              "marks": [{"number": m.number, "paragraph_id": m.paragraph_id, "valid": m.valid}
                                        for m in marks],
                              "traceability": dict(scores)})
    if step is not None:
        for statement in found:
            ids = list(dict.fromkeys(m.paragraph_id for m in statement.marks if m.paragraph_id is not None))
            if ids:
                cite(step, ids, claim=statement.text)
    return step


def record_extraction(question: str, answer: str, source: str, text: str, parent: int | None) -> int | None:
    """The answer taken from text without a tracing call (``source``: "final_content" or "generation")."""
    return record_step("extract", parent=parent, input=text, output=answer, extra={"source": source,
                                                                                   "question": question})
