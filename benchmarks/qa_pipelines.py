"""The QA benchmark's MIGRES and SearChain pipelines, and its StrategyQA setups.

MIGRES and SearChain take their thresholds from ``benchmarks/thresholds.json``
(written by ``benchmarks/migres_calibration.py`` and ``benchmarks/searchain_calibration.py``);
:func:`check_calibrated` refuses, before anything runs, a method whose threshold has not
been measured for the model, and names the command that measures it.

StrategyQA: MIGRES with its yes/no Main Module and the authors' commonsense
demonstrations, SearChain with its StrategyQA prompt (Figure 15). The IRCoT authors
have no StrategyQA demonstrations, so NoR and OneR read zero-shot with a yes/no
instruction, and IRCoT is not run there (see :data:`SKIPPED`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from benchmarks.thresholds import (
    ALL_TASKS,
    MIGRES_RELEVANCE,
    SEARCHAIN_CONFIDENCE,
    THRESHOLDS_FILE,
    NotCalibrated,
    calibrated,
    calibration_entry,
)
from hopkit.methods.reader import ReaderConfig
from hopkit.pipelines.base import GenerationPipeline
from hopkit.pipelines.generation.migres import MIGRESGenerationPipeline
from hopkit.pipelines.generation.searchain import SearChainGenerationPipeline
from hopkit.pipelines.retrieval.bm25 import BM25RetrievalPipeline

YES_NO = "strategyqa"
#: The options that turn MIGRES (zero-shot, the paper's default) into each benchmark method.
MIGRES_VARIANTS: dict[str, dict[str, Any]] = {
    "migres": {},
    "migres-fewshot": {"few_shot": True},                 # MIGRES*, Table 3's few-shot rows
    "migres-no-sentence-filter": {"sentence_filter": False},  # Table 5, "w/o Sentence Filtering"
    "migres-no-knowledge": {"knowledge_prompting": False},    # Table 6, "w/o GPT knowledge"
}
#: The options that turn SearChain into each benchmark method (Table 1's ablations).
SEARCHAIN_VARIANTS: dict[str, dict[str, Any]] = {
    "searchain": {},
    "searchain-no-verification": {"verification": False},
    "searchain-no-completion": {"completion": False},
}
#: (method, dataset) pairs the benchmark does not run, and why.
SKIPPED: dict[tuple[str, str], str] = {
    (method, YES_NO): "the IRCoT authors have no StrategyQA demonstrations, and IRCoT's zero-shot templates have "
                      "no yes/no instruction (on the multi-hop samples its reader answered in sentences: EM 0-3% "
                      "for cover-EM 47-50%, section qa-ircot), so a run would measure the missing demonstrations, "
                      "not IRCoT"
    for method in ("ircot", "ircot-cot", "ircot-reasoning-reader", "ircot-2-demos", "ircot-zeroshot")
}
#: The zero-shot reader of NoR and OneR on StrategyQA (no demonstrations exist for it).
YES_NO_READER = ReaderConfig(
    mode="direct", max_tokens=8,
    instruction="Answer the question with yes or no, using the Wikipedia paragraphs if they help.")


def migres_task(dataset: str) -> str:
    """The task group whose δ MIGRES uses on ``dataset`` (Table 11 sets δ per group)."""
    return YES_NO if dataset == YES_NO else "multihop"


def needed_thresholds(method: str, dataset: str) -> tuple[str, str] | None:
    """The (threshold kind, task group) ``method`` needs on ``dataset``, if any."""
    if method in MIGRES_VARIANTS:
        return MIGRES_RELEVANCE, migres_task(dataset)
    if method in SEARCHAIN_VARIANTS:
        return SEARCHAIN_CONFIDENCE, ALL_TASKS
    return None


def check_calibrated(methods: Sequence[str], datasets: Sequence[str], llm_name: str,
                     path: Path = THRESHOLDS_FILE) -> list[str]:
    """Every problem with the thresholds ``methods`` need on ``datasets`` (empty: all calibrated)."""
    problems: dict[str, None] = {}
    for method in methods:
        for dataset in datasets:
            needed = needed_thresholds(method, dataset)
            if needed is None or (method, dataset) in SKIPPED:
                continue
            try:
                calibrated(needed[0], llm_name, needed[1], path)
            except NotCalibrated as exc:
                problems[str(exc)] = None
    return list(problems)


def migres_pipeline(method: str, dataset: str, session_factory: Any, llm: Any, llm_name: str,
                    path: Path = THRESHOLDS_FILE) -> GenerationPipeline:
    """MIGRES with the paper's settings for the dataset's task (Table 11) and the calibrated δ.

    δ is used with the ``rerank_top`` it was calibrated on (none: every hit is scored).

    Raises:
        NotCalibrated: δ was not measured for ``llm_name`` and the dataset's task group.
    """
    task = migres_task(dataset)
    delta = calibration_entry(MIGRES_RELEVANCE, llm_name, task, path)
    bm25 = BM25RetrievalPipeline(session_factory, name="bm25-migres", dataset=dataset, k1=0.9, b=0.4)
    options: dict[str, Any] = {
        "max_iterations": 5,                          # Table 11: multi-hop and StrategyQA
        "relevance_threshold": float(delta["value"]),
        "rerank_top": delta.get("rerank_top"),
        "answer_format": "yes_no" if task == YES_NO else "span",
        "demonstration_set": "commonsense" if task == YES_NO else "multihop",
        **MIGRES_VARIANTS[method],
    }
    return MIGRESGenerationPipeline(session_factory, f"{method}-{dataset}", llm, bm25, dataset=dataset, **options)


def searchain_pipeline(method: str, dataset: str, session_factory: Any, llm: Any, llm_name: str,
                       path: Path = THRESHOLDS_FILE) -> GenerationPipeline:
    """SearChain with the dataset's task prompt, top-1 BM25 (as IRCoT's runs) and the calibrated θ.

    Raises:
        NotCalibrated: θ was not measured for ``llm_name``.
    """
    bm25 = BM25RetrievalPipeline(session_factory, name="bm25", dataset=dataset)
    options: dict[str, Any] = {
        "task": "strategyqa" if dataset == YES_NO else "multihop",
        "confidence_threshold": calibrated(SEARCHAIN_CONFIDENCE, llm_name, ALL_TASKS, path),
        **SEARCHAIN_VARIANTS[method],
    }
    return SearChainGenerationPipeline(session_factory, f"{method}-{dataset}", llm, bm25, dataset=dataset,
                                       **options)
