"""Adaptive-RAG's steps: a ``scope`` step with the route the classifier chose, then the steps of the
strategy it routed to (NoR's, OneR's or IRCoT's, each marked as that method's: ``extra.method``),
read with that method's payload types and drawn with its template."""

from __future__ import annotations

from dataclasses import dataclass

from hopkit.traces.payload import Payload, at
from hopkit.traces.summary import Summary


@dataclass(frozen=True, kw_only=True)
class AdaptiveRoute(Payload):
    """The classifier's decision for the question: the label (``A`` no retrieval, ``B`` single-step,
    ``C`` multi-step), the strategy it runs, the classifier (``prompted`` or a file), whether its
    output held a label (``readable``; False: the fallback), and a prompted classifier's reply (the
    step's ``scores`` hold a trained classifier's probability per label)."""

    kind = "scope"
    question: str = at("input")
    label: str = at("output")
    strategy: str
    classifier: str
    readable: bool = True
    reply: str | None = None


#: Adaptive-RAG's own payloads (the strategies' steps read with theirs).
PAYLOADS: tuple[type[Payload], ...] = (AdaptiveRoute,)


@dataclass(frozen=True, kw_only=True)
class AdaptiveRAGSummary(Summary):
    """Adaptive-RAG's summary of one question, beside the summary of the strategy it ran (whose keys are
    stored with it).

    Attributes:
        route: the label.
        strategy: the strategy run (``nor``, ``oner``, ``ircot``).
        classifier: ``prompted``, or the classifier file.
    """

    route: str
    strategy: str
    classifier: str
