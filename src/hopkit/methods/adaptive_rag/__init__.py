"""Adaptive-RAG (Jeong et al., NAACL 2024): a query complexity classifier routes each question to no
retrieval (NoR), single-step retrieval (OneR) or multi-step retrieval (IRCoT)."""

from __future__ import annotations

from pathlib import Path

from hopkit.methods.adaptive_rag.claims import CLAIMS
from hopkit.methods.adaptive_rag.method import AdaptiveRAG, AdaptiveRAGConfig, build_adaptive_rag
from hopkit.methods.adaptive_rag.steps import PAYLOADS, AdaptiveRAGSummary
from hopkit.methods.registry import MethodEntry, MethodParts
from hopkit.methods.adaptive_rag.classifiers import PARTS


def build(parts: MethodParts) -> AdaptiveRAG:
    retriever = parts.needed_retriever("Adaptive-RAG")
    return build_adaptive_rag(parts.llm, retriever, parts.options, parts.dataset, parts.paragraphs, parts.experiments)


METHOD = MethodEntry(
    name="adaptive-rag", title="Adaptive-RAG", options=AdaptiveRAGConfig, build=build, retrieves=True,
    no_top_k_reason="its strategies retrieve as their own settings say (OneR's k, IRCoT's k_per_step)",
    template=Path(__file__).with_name("report.html.j2"),
    summary="a query complexity classifier routes each question to NoR, OneR or IRCoT",
    payloads=PAYLOADS, summary_type=AdaptiveRAGSummary, claims=CLAIMS, parts=PARTS)

__all__ = ["METHOD", "AdaptiveRAG", "AdaptiveRAGConfig"]
