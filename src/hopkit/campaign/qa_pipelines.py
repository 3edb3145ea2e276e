"""The QA benchmark's pipelines: a variant's YAML file (:mod:`hopkit.campaign.variants`) built by hopkit.

``pipeline_for(variant, dataset, ...)`` reads the variant (a declared experiment, or
``src/hopkit/campaign/variants/<variant>.yaml``) as it runs
on the dataset, fills in the thresholds it names from ``benchmarks/thresholds.json`` (written
by ``hopkit campaign calibrate-migres`` and ``hopkit campaign calibrate-searchain``) and
assembles it as ``hopkit run`` does (:mod:`hopkit.pipelines.assembly`). :func:`check_calibrated`
refuses, before anything runs, a variant whose threshold has not been measured for the model,
and names the command that measures it. ``hopkit campaign variant VARIANT DATASET``
prints a variant as the plain config ``hopkit run`` takes.

StrategyQA: MIGRES with its yes/no Main Module and the authors' commonsense demonstrations,
SearChain with its StrategyQA prompt (Figure 15). The IRCoT authors have no StrategyQA
demonstrations, so NoR and OneR read zero-shot with a yes/no instruction, ITER-RETGEN reads
three made from annotated StrategyQA questions, FLARE its authors' StrategyQA exemplars, and
IRCoT is not run there (see :data:`SKIPPED`); each variant's file says so in its ``per_dataset``
block.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Sequence

import yaml

from hopkit.campaign.environment import LLM_NAME
from hopkit.campaign.thresholds import (MIGRES_RELEVANCE, SEARCHAIN_CONFIDENCE, THRESHOLDS_FILE, NotCalibrated,
                                   calibrated, calibration_entry)
from hopkit.campaign.variants import Variant, load_variant, skipped, variant_names
from hopkit.pipelines.assembly import assemble
from hopkit.pipelines.base import GenerationPipeline

YES_NO = "strategyqa"
#: Every variant: the declared experiments and the files of ``src/hopkit/campaign/variants/``.
METHODS = tuple(variant_names())
#: (variant, dataset) pairs the benchmark does not run, and why.
SKIPPED: dict[tuple[str, str], str] = skipped()


def check_calibrated(methods: Sequence[str], datasets: Sequence[str], llm_name: str,
                     path: Path = THRESHOLDS_FILE) -> list[str]:
    """Every problem with the thresholds ``methods`` need on ``datasets`` (empty: all calibrated)."""
    problems: dict[str, None] = {}
    for method in methods:
        for dataset in datasets:
            needed = load_variant(method, dataset).calibrated
            if needed is None or (method, dataset) in SKIPPED:
                continue
            try:
                calibrated(needed.threshold, llm_name, needed.task, path)
            except NotCalibrated as exc:
                problems[str(exc)] = None
    return list(problems)


def calibrated_options(variant: Variant, llm_name: str, path: Path = THRESHOLDS_FILE) -> dict[str, Any]:
    """The options ``variant``'s calibrated threshold sets: MIGRES's δ (for MIGRES, with the ``rerank_top`` it
    was calibrated on; none: every hit is scored; ALCE's VANILLA-s takes δ alone), or SearChain's θ.

    Raises:
        NotCalibrated: the threshold was not measured for ``llm_name`` and the task group.
    """
    needed = variant.calibrated
    if needed is None:
        return {}
    if needed.threshold == MIGRES_RELEVANCE:
        delta = calibration_entry(MIGRES_RELEVANCE, llm_name, needed.task, path)
        if variant.config.get("method") != "migres":
            return {"relevance_threshold": float(delta["value"])}
        return {"relevance_threshold": float(delta["value"]), "rerank_top": delta.get("rerank_top")}
    if needed.threshold == SEARCHAIN_CONFIDENCE:
        return {"confidence_threshold": calibrated(SEARCHAIN_CONFIDENCE, llm_name, needed.task, path)}
    raise SystemExit(f"{variant.source}: field 'calibrated': no calibrated threshold {needed.threshold!r}; "
                     f"the thresholds are {MIGRES_RELEVANCE} and {SEARCHAIN_CONFIDENCE}")


def pipeline_for(method: str, dataset: str, session_factory: Any, llm: Any, *, llm_name: str | None = None,
                 thresholds: Path = THRESHOLDS_FILE) -> GenerationPipeline:
    """Variant ``method`` on ``dataset``, built from its YAML file, answering with ``llm``.

    A variant with a calibrated threshold reads it for ``llm_name`` (the LLM config's name)
    from ``thresholds``. The pipeline is given the loaded ``llm`` itself, so its run id records
    the model's id and context length, as the saved runs' ids do (a config name would be
    recorded as the config instead).

    Raises:
        SystemExit: no such variant, it is not run on ``dataset``, or it needs ``llm_name``.
        NotCalibrated: its threshold was not measured for ``llm_name``.
    """
    variant = load_variant(method, dataset)
    if variant.calibrated is not None and llm_name is None:
        raise SystemExit(f"{method} needs llm_name, the LLM config its thresholds were calibrated for")
    spec = hopkit_config(method, dataset, llm_name or LLM_NAME, thresholds)
    return assemble(spec, variant.source, lambda: session_factory, model=llm).pipeline


def hopkit_config(method: str, dataset: str, llm_name: str = LLM_NAME,
                  thresholds: Path = THRESHOLDS_FILE) -> dict[str, Any]:
    """Variant ``method`` on ``dataset`` as a plain hopkit pipeline config (``hopkit run`` reads it),
    for the LLM config ``llm_name``, its calibrated thresholds filled in.

    Raises:
        SystemExit: no such variant, or it is not run on ``dataset``.
        NotCalibrated: its threshold was not measured for ``llm_name``.
    """
    variant = load_variant(method, dataset)
    if variant.skipped is not None:
        raise SystemExit(f"{method} is not run on {dataset}: {variant.skipped}")
    return {**variant.config, "llm": llm_name, **calibrated_options(variant, llm_name, thresholds)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Print a QA benchmark variant as a hopkit pipeline config "
                                                 "(hopkit run CONFIG.yaml runs it)")
    parser.add_argument("variant", choices=METHODS)
    parser.add_argument("dataset")
    parser.add_argument("--llm", default=LLM_NAME, help="the LLM config (its calibrated thresholds are filled in)")
    args = parser.parse_args(argv)
    print(f"# {load_variant(args.variant, args.dataset).description}")
    print(yaml.safe_dump(hopkit_config(args.variant, args.dataset, args.llm), sort_keys=False, allow_unicode=True),
          end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
