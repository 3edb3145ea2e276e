"""Self-Ask (Press et al., 2023) with a retriever: the model asks itself follow-up questions, each
answered after the paragraphs retrieved for it, then gives the final answer."""

from __future__ import annotations

from pathlib import Path

from hopkit.methods.registry import MethodEntry, MethodParts
from hopkit.methods.self_ask.claims import CLAIMS
from hopkit.methods.self_ask.method import PARTS, SelfAsk, SelfAskConfig
from hopkit.methods.self_ask.steps import PAYLOADS, SelfAskSummary


def build(parts: MethodParts) -> SelfAsk:
    retriever = parts.needed_retriever("Self-Ask")
    return SelfAsk(parts.llm, retriever, parts.options)


METHOD = MethodEntry(
    name="self-ask", title="Self-Ask", options=SelfAskConfig, build=build, retrieves=True, top_k="k",
    template=Path(__file__).with_name("report.html.j2"),
    summary="the model asks follow-up questions, each answered after the paragraphs retrieved for it",
    payloads=PAYLOADS, summary_type=SelfAskSummary, claims=CLAIMS, parts=PARTS)

__all__ = ["METHOD", "SelfAsk", "SelfAskConfig"]
