"""ALCE's zero-shot readers (Gao et al., 2023) as the MIGRES paper compares against them: VANILLA,
VANILLA-s, SUMM and SNIPPET over BM25 hits ordered by a reranker."""

from __future__ import annotations

from pathlib import Path

from hopkit.judges.factory import judge_spec
from hopkit.methods.alce.claims import CLAIMS
from hopkit.methods.alce.method import ALCE, PARTS, ALCEConfig
from hopkit.methods.alce.steps import PAYLOADS, ALCESummary
from hopkit.methods.migres import PAPER_DELTA
from hopkit.methods.registry import MethodEntry, MethodParts


def build(parts: MethodParts) -> ALCE:
    return ALCE(parts.llm, parts.needed_retriever("ALCE"), parts.options)


def uncalibrated_delta(options: ALCEConfig) -> list[str]:
    """VANILLA-s's sentence filter with the paper's BGE-reranker δ but the LLM as the judge."""
    judge = judge_spec("relevance", options.reranker, option="reranker")
    if options.reader != "vanilla-s" or judge.kind != "llm" or options.relevance_threshold != PAPER_DELTA:
        return []
    return [f"ALCE vanilla-s: relevance_threshold (δ) is {PAPER_DELTA:g}, the BGE reranker's value, but the judge is "
            "the LLM, on another scale; measure δ with `hopkit calibrate migres --dataset DATASET --llm MODEL`"]


METHOD = MethodEntry(
    name="alce", title="ALCE", options=ALCEConfig, build=build, retrieves=True, top_k="k",
    template=Path(__file__).with_name("report.html.j2"), warnings=uncalibrated_delta,
    summary="ALCE's zero-shot readers: reranked BM25 hits, whole, cut to sentences, summarised or extracted",
    payloads=PAYLOADS, summary_type=ALCESummary, claims=CLAIMS, parts=PARTS)

__all__ = ["METHOD", "ALCE", "ALCEConfig"]
