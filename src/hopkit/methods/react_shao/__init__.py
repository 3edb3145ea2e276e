"""ReAct as Shao et al. (2023) run it, the ReAct of the MIGRES paper's Table 3: Self-Ask's markers,
each follow-up's retrieved paragraphs as its observation."""

from __future__ import annotations

from pathlib import Path

from hopkit.methods.react_shao.method import PARTS, ReActShao, ReActShaoConfig
from hopkit.methods.registry import MethodEntry, MethodParts
from hopkit.methods.self_ask.steps import PAYLOADS, SelfAskSummary


def build(parts: MethodParts) -> ReActShao:
    retriever = parts.needed_retriever("ReAct (Shao et al.)")
    return ReActShao(parts.llm, retriever, parts.options, dataset=parts.dataset)


METHOD = MethodEntry(
    name="react-shao", title="ReAct-Shao", options=ReActShaoConfig, build=build, retrieves=True, top_k="k",
    template=Path(__file__).parent.parent / "self_ask" / "report.html.j2",
    summary="ReAct in Self-Ask's markers (Shao et al.): each follow-up's paragraphs are its observation",
    payloads=PAYLOADS, summary_type=SelfAskSummary, parts=PARTS)

__all__ = ["METHOD", "ReActShao", "ReActShaoConfig"]
