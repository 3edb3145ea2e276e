"""The QA benchmark's variants: every method's declared experiments (``experiments.yaml`` in its
package, :mod:`hopkit.pipelines.experiments`) and the benchmark's own, one YAML file each in
``src/hopkit/campaign/variants/`` (levers and retrievers measured here: ``ircot-reasoning-reader``,
``oner-minilm``...), which extend them.

The run's name is ``<name>-<dataset>``; a ``calibrated`` threshold is read from
``benchmarks/thresholds.json`` when the pipeline is built (:mod:`hopkit.campaign.qa_pipelines`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from hopkit.campaign.saved_run_pins import with_pins
from hopkit.errors import ConfigError, UnknownNameError
from hopkit.pipelines.experiments import Calibrated, Experiment, datasets_with_own_keys, experiment_names, load_experiment

__all__ = ["VARIANTS_DIR", "Calibrated", "Variant", "load_variant", "skipped", "variant_names"]

VARIANTS_DIR = Path(__file__).resolve().parent / "variants"
Variant = Experiment


def variant_names() -> list[str]:
    """Every variant, sorted."""
    return experiment_names([VARIANTS_DIR])


def load_variant(name: str, dataset: str) -> Variant:
    """Variant ``name`` as it runs on ``dataset``, its run named ``<name>-<dataset>``, with the options its
    method's saved runs are pinned to (:mod:`hopkit.campaign.saved_run_pins`).

    Raises:
        SystemExit: no variant has that name, or its declaration extends one in a circle.
    """
    try:
        experiment = load_experiment(name, dataset, [VARIANTS_DIR])
    except (UnknownNameError, ConfigError) as exc:
        raise SystemExit(str(exc)) from None
    config = {**with_pins(experiment.config), "name": f"{experiment.config['name']}-{dataset}"}
    return replace(experiment, config=config)


def skipped() -> dict[tuple[str, str], str]:
    """(variant, dataset) pairs the benchmark does not run, and why (their ``per_dataset`` ``skip``)."""
    pairs = ((name, dataset) for name in variant_names() for dataset in datasets_with_own_keys(name, [VARIANTS_DIR]))
    return {(name, dataset): variant.skipped for name, dataset in pairs
            if (variant := load_variant(name, dataset)).skipped is not None}
