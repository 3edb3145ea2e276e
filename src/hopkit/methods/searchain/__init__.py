"""SearChain (Xu et al., WWW 2024): Search-in-the-Chain.

The loop is :class:`~hopkit.methods.searchain.method.SearChain`; its feedback rules,
Tree-of-Reasoning, tracing marks, growing conversation, trace steps and verbatim prompts
are beside it.
"""

from __future__ import annotations

from pathlib import Path

from hopkit.methods.registry import MethodEntry, MethodParts
from hopkit.methods.searchain.claims import CLAIMS
from hopkit.methods.searchain.method import PARTS, SearChain, SearChainConfig
from hopkit.methods.searchain.steps import PAYLOADS, SearChainSummary


# Section 4.1.3's θ, a relevance logit of the authors' DPR reader, which hopkit does not have.
PAPER_THETA = 1.5


def uncalibrated_theta(options: SearChainConfig) -> list[str]:
    """A warning when θ is still the paper's value, which is in the scale of a reader hopkit does not have."""
    if options.confidence_threshold != PAPER_THETA or not (options.verification or options.completion):
        return []
    return [f"SearChain: confidence_threshold (θ) is {PAPER_THETA:g}, the paper's value for its DPR reader's "
            "logits; every hopkit reader has its own scale, so the reader's answers correct the chain more or less "
            "often than the paper's did. Measure θ for this reader with `hopkit calibrate searchain --dataset "
            "DATASET --llm MODEL` and set confidence_threshold in the run's config (docs/searchain.md); if you "
            "measured 1.5, this warning does not apply"]


def build(parts: MethodParts) -> SearChain:
    retriever = parts.needed_retriever("SearChain")
    return SearChain(parts.llm, retriever, parts.options)


METHOD = MethodEntry(
    name="searchain", title="SearChain", options=SearChainConfig, build=build, retrieves=True, top_k="top_k",
    template=Path(__file__).with_name("report.html.j2"),
    summary="the model writes a chain of queries; retrieval verifies and completes it node by node",
    warnings=uncalibrated_theta, payloads=PAYLOADS, summary_type=SearChainSummary, claims=CLAIMS, parts=PARTS)

__all__ = ["METHOD", "SearChain", "SearChainConfig"]
