"""IRCoT's steps as its typed trace records them (see ``docs/traces.md``).

Each step names the one before it as its parent, so a question's steps form a chain::

    scope (IIRC only) -> retrieve (a) -> reason (b, c) -> retrieve (d) -> reason ... -> read (e)

* ``scope``: input the question; output the corpus titles retrieval is restricted to;
  extra ``generated`` (the titles the model wrote) and ``generation``.
* ``retrieve``: input the query; ``paragraph_ids`` and ``scores`` what the retriever
  returned, best first; output ``{"kept": [ids], "dropped": [{"paragraph_id", "reason"}],
  "skipped": null}``, the reasons being the collection's (``duplicate``,
  ``near_duplicate``, ``too_long``, ``budget_full``). A retrieval not made has
  ``"skipped": "empty_query"`` or ``"budget_full"`` and returned nothing. Extra ``k``.
* ``reason``: ``paragraph_ids`` the paragraphs in the prompt; output the first
  sentence kept (``""`` when the model wrote nothing); extra ``generation`` (the
  whole line), ``demonstrations`` kept in the prompt, and ``stop_reason`` ("answer",
  "empty", "max_steps", or null when the loop goes on).
* ``read`` (a reader) or ``extract`` (``reader="none"``: the answer taken from the
  CoT): input the question (``read``) or the CoT (``extract``); output the answer;
  ``paragraph_ids`` the paragraphs read (none for ``extract``); extra ``reader``, and for
  ``read`` the reader's ``generation`` and ``context`` ("own" or "reasoning").
"""

from __future__ import annotations

from typing import Any, Sequence

from hopkit.methods.ircot.iirc import TitleScope
from hopkit.methods.paragraph_collection import Admission
from hopkit.records import Paragraph, ScoredParagraph
from hopkit.traces import PREVIOUS, record_step


def record_scope(question: str, scope: TitleScope) -> None:
    """IIRC's title step (i)."""
    record_step("scope", parent=PREVIOUS, input=question, output=list(scope.titles),
                extra={"generated": list(scope.generated), "generation": scope.generation})


def record_retrieval(query: str, hits: Sequence[ScoredParagraph], admissions: Sequence[Admission], k: int) -> None:
    """A retrieval (a) or (d): what the retriever returned and what the collection did with each."""
    dropped = [{"paragraph_id": hit.id, "reason": admission.value}
               for hit, admission in zip(hits, admissions) if admission is not Admission.ADDED]
    outcome = {"kept": [hit.id for hit, admission in zip(hits, admissions) if admission is Admission.ADDED],
               "dropped": dropped, "skipped": None}
    record_step("retrieve", parent=PREVIOUS, input=query, output=outcome,
                paragraph_ids=[hit.id for hit in hits], scores=[float(hit.score) for hit in hits],
                extra={"k": k})


def record_skipped_retrieval(query: str, reason: str, k: int) -> None:
    """A retrieval not made: the query was empty ("empty_query") or the budget full ("budget_full")."""
    record_step("retrieve", parent=PREVIOUS, input=query,
                output={"kept": [], "dropped": [], "skipped": reason}, extra={"k": k})


def record_reasoning(shown: Sequence[Paragraph], sentence: str, generation: str, demonstrations: int,
                     stop_reason: str | None) -> None:
    """A reasoning step (b, c): the sentence kept from the model's line."""
    record_step("reason", parent=PREVIOUS, output=sentence, paragraph_ids=[p.id for p in shown],
                extra={"generation": generation, "demonstrations": demonstrations,
                       "stop_reason": stop_reason})


def record_reading(question: str, cot: Sequence[str], shown: Sequence[Paragraph], answer: str,
                   generation: str | None, reader: str, context: str) -> None:
    """The reading step (e): the reader's answer, or the one extracted from the CoT without a reader."""
    if reader == "none":
        record_step("extract", parent=PREVIOUS, input=" ".join(cot), output=answer, extra={"reader": reader})
        return
    extra: dict[str, Any] = {"generation": generation, "reader": reader, "context": context}
    record_step("read", parent=PREVIOUS, input=question, output=answer, paragraph_ids=[p.id for p in shown],
                extra=extra)
