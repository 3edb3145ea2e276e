"""MIGRES (Wang et al., 2024): missing-information guided retrieve-extraction-solving.

The loop is :class:`~hopkit.methods.migres.method.MIGRES`; its modules, knowledge filter,
memory, response parsers, trace steps, verbatim prompts and the authors' demonstrations
are beside it.
"""

from __future__ import annotations

from pathlib import Path

from hopkit.judges.factory import judge_spec
from hopkit.methods.migres.claims import CLAIMS
from hopkit.methods.migres.method import MIGRES, MIGRESConfig
from hopkit.methods.migres.steps import PAYLOADS, MIGRESSummary
from hopkit.methods.registry import MethodEntry, MethodParts
from hopkit.methods.migres.modules import PARTS


def build(parts: MethodParts) -> MIGRES:
    retriever = parts.needed_retriever("MIGRES")
    options = parts.options
    demonstrations = None
    if options.few_shot:
        from hopkit.methods.migres.demonstrations import load_migres_demonstrations

        demonstrations = load_migres_demonstrations(options.demonstration_set)
    return MIGRES(parts.llm, retriever, options, demonstrations)


# Table 11's δ for multi-hop QA, a logit of the paper's BGE reranker.
PAPER_DELTA = 3.0


def uncalibrated_delta(options: MIGRESConfig) -> list[str]:
    """A warning when δ is the paper's BGE-reranker value but the relevance judge is the LLM."""
    judge = judge_spec("relevance", options.reranker, option="reranker")
    if judge.kind != "llm" or options.relevance_threshold != PAPER_DELTA:
        return []
    return [f"MIGRES: relevance_threshold (δ) is {PAPER_DELTA:g}, the paper's value for the BGE reranker's logits, "
            "but the relevance judge is the LLM, whose scores are on another scale: with it the Knowledge Filter "
            "keeps almost no passage. Measure δ for this judge with `hopkit calibrate migres --dataset DATASET "
            "--llm MODEL` and set relevance_threshold in the run's config (docs/migres.md)"]


METHOD = MethodEntry(
    name="migres", title="MIGRES", options=MIGRESConfig, build=build, retrieves=True,
    no_top_k_reason="MIGRES retrieves hits_per_query passages for each query it asks (its own option)",
    template=Path(__file__).with_name("report.html.j2"),
    summary="asks for the information still missing, extracts facts from filtered passages, then solves",
    warnings=uncalibrated_delta, payloads=PAYLOADS, summary_type=MIGRESSummary, claims=CLAIMS, parts=PARTS)

__all__ = ["METHOD", "MIGRES", "MIGRESConfig"]
