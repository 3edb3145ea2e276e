"""ReAct (Yao et al., 2023), the original: Thought / Action (Search, Lookup, Finish) / Observation
turns with the authors' six HotpotQA trajectories, over a passage retriever."""

from __future__ import annotations

from pathlib import Path

from hopkit.methods.react.method import PARTS, ReAct, ReActConfig
from hopkit.methods.react.steps import PAYLOADS, ReActSummary
from hopkit.methods.registry import MethodEntry, MethodParts


def build(parts: MethodParts) -> ReAct:
    retriever = parts.needed_retriever("ReAct")
    return ReAct(parts.llm, retriever, parts.options)


METHOD = MethodEntry(
    name="react", title="ReAct", options=ReActConfig, build=build, retrieves=True, top_k="k",
    template=Path(__file__).with_name("report.html.j2"),
    summary="Thought / Action / Observation turns: the model searches, looks up and finishes",
    payloads=PAYLOADS, summary_type=ReActSummary, parts=PARTS)

__all__ = ["METHOD", "ReAct", "ReActConfig"]
