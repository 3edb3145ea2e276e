"""A run's calibrated threshold from the store: what ``hopkit calibrate`` measured for its model,
retrieval and dataset, used where the run's config does not set the threshold itself (a step of a
run's assembly, :mod:`hopkit.pipelines.assembly`)."""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

from sqlalchemy.orm import Session, sessionmaker

from hopkit.pipelines.experiments import load_experiment
from hopkit.methods.registry import method_entry
from hopkit.store.thresholds import ThresholdStore


def with_stored_threshold(spec: Mapping[str, Any], session_factory: sessionmaker[Session]
                          ) -> tuple[dict[str, Any], str | None]:
    """``spec`` (a pipeline config naming an experiment that needs a calibrated threshold) with the threshold
    stored for its model, retrieval and dataset, and a line saying which and from where; unchanged (and None)
    when the config sets the threshold itself, names no experiment, or none was stored."""
    config = dict(spec)
    if "experiment" not in config or not config.get("dataset") or not isinstance(config.get("llm"), str):
        return config, None
    experiment = load_experiment(str(config["experiment"]), str(config["dataset"]))
    if experiment.calibrated is None:
        return config, None
    retrieval = config.get("retrieval_pipeline_name", experiment.config.get("retrieval_pipeline_name"))
    stored = ThresholdStore(session_factory).get(experiment.calibrated.threshold, config["llm"], str(retrieval),
                                                 str(config["dataset"]))
    method_options = {field.name for field in dataclasses.fields(method_entry(str(experiment.config["method"])).options)}
    options = {name: value for name, value in (stored.options if stored else {}).items() if name in method_options}
    if not options or set(options) & set(config):
        return config, None
    config.update(options)
    shown = ", ".join(f"{name} {value}" for name, value in options.items())
    assert stored is not None
    return config, f"{experiment.name} on {config['dataset']}: {shown}, from {stored.origin()}"
