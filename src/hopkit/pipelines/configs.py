"""A pipeline config's mapping (a YAML file's, or a declared experiment's) made into its config object.

A pipeline config may name a registered method instead of a class (``method: ircot``,
:mod:`hopkit.methods.registry`): its ``_target_`` is that method's YAML config class. It may name a
declared experiment (``experiment: flare``, :mod:`hopkit.pipelines.experiments`): that experiment's settings for
the config's ``dataset``, the config's own keys over them. The rest (the target allowed, every option
checked before anything is called) is :func:`hopkit.config.instantiate`'s, which knows nothing of
methods or experiments.
"""

from __future__ import annotations

from typing import Any, Mapping

from hopkit.config import instantiate
from hopkit.pipelines.experiments import experiment_spec
from hopkit.pipelines.generation.registered import with_method_target


def instantiate_pipeline_config(spec: Mapping[str, Any], source: str) -> Any:
    """The pipeline config object ``spec`` describes (call ``.build(session_factory)`` on it).

    Raises:
        ConfigError: naming ``source`` and the field: no such experiment or method, the experiment is
            not run on the dataset, or what :func:`hopkit.config.instantiate` refuses.
    """
    if "experiment" in spec:
        spec = experiment_spec(spec, source)
    if "_target_" not in spec and "method" in spec:
        spec = with_method_target(spec, source)
    return instantiate(spec, source, kind="pipelines")
