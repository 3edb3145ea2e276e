"""The QA benchmark's variants, one YAML file each in ``benchmarks/configs/``.

A variant file is a hopkit pipeline config (``method:`` and the method's options, as
``hopkit run`` reads them) plus a few keys of the benchmark's own, taken out before hopkit
sees the config:

- ``description``: the variant in one sentence, for the report.
- ``extends``: another variant whose keys this one starts from (its own keys win).
- ``per_dataset``: for a dataset, keys that replace the variant's own there; ``skip: REASON``
  there means the variant is not run on that dataset.
- ``calibrated``: ``{threshold: KIND, task: GROUP}``, a threshold measured for the model by a
  calibration script and read from ``benchmarks/thresholds.json`` when the pipeline is built
  (:mod:`benchmarks.qa_pipelines`).

The run's name is ``<name>-<dataset>``, and ``demonstrations`` without a ``dataset`` are the
demonstrations of the dataset the run is on.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from hopkit.config import load_yaml

VARIANTS_DIR = Path(__file__).resolve().parent / "configs"
_OWN_KEYS = ("description", "extends", "per_dataset", "calibrated")


@dataclass(frozen=True)
class Calibrated:
    """A threshold read from the calibrations: its kind (``migres_relevance``...) and task group."""

    threshold: str
    task: str


@dataclass(frozen=True)
class Variant:
    """One variant on one dataset: the pipeline config hopkit instantiates, and the benchmark's keys.

    Attributes:
        name: the variant (its file's name).
        dataset: the dataset it is for.
        config: the hopkit pipeline config (``method``, ``name``, ``dataset`` and the options).
        description: the variant in one sentence.
        source: the file, for messages.
        calibrated: the calibrated threshold it needs on this dataset, if any.
        skipped: why it is not run on this dataset (None: it is run).
    """

    name: str
    dataset: str
    config: Mapping[str, Any]
    description: str
    source: str
    calibrated: Calibrated | None = None
    skipped: str | None = None


def variant_names() -> list[str]:
    """Every variant, sorted."""
    return sorted(path.stem for path in VARIANTS_DIR.glob("*.yaml"))


def _path(name: str) -> Path:
    path = VARIANTS_DIR / f"{name}.yaml"
    if not path.exists():
        raise SystemExit(f"unknown variant {name!r}; choose from {', '.join(variant_names())}")
    return path


def _merged(name: str, seen: tuple[str, ...] = ()) -> dict[str, Any]:
    """The variant's keys with those of the variants it extends (``per_dataset`` merged per dataset)."""
    if name in seen:
        raise SystemExit(f"{_path(name)}: 'extends' goes round in a circle: {' -> '.join((*seen, name))}")
    own = load_yaml(_path(name))
    parent = own.pop("extends", None)
    if parent is None:
        return own
    merged = _merged(parent, (*seen, name))
    per_dataset = {dataset: dict(keys) for dataset, keys in merged.get("per_dataset", {}).items()}
    for dataset, keys in own.pop("per_dataset", {}).items():
        per_dataset.setdefault(dataset, {}).update(keys)
    merged.update(own)
    if per_dataset:
        merged["per_dataset"] = per_dataset
    return merged


def load_variant(name: str, dataset: str) -> Variant:
    """Variant ``name`` as it runs on ``dataset``.

    Raises:
        SystemExit: no variant has that name, or its file names an unknown variant to extend.
    """
    spec = _merged(name)
    spec.update(spec.pop("per_dataset", {}).get(dataset, {}))
    own = {key: spec.pop(key, None) for key in (*_OWN_KEYS, "skip")}
    demonstrations = spec.get("demonstrations")
    if isinstance(demonstrations, Mapping) and "dataset" not in demonstrations:
        spec["demonstrations"] = {**demonstrations, "dataset": dataset}
    spec["name"] = f"{spec.get('name', name)}-{dataset}"
    spec["dataset"] = dataset
    calibrated = Calibrated(**own["calibrated"]) if own["calibrated"] is not None else None
    return Variant(name, dataset, spec, own["description"] or name, str(_path(name)), calibrated, own["skip"])


def skipped() -> dict[tuple[str, str], str]:
    """(variant, dataset) pairs the benchmark does not run, and why (their ``per_dataset`` ``skip``)."""
    pairs = ((name, dataset) for name in variant_names() for dataset in _merged(name).get("per_dataset", {}))
    return {(name, dataset): variant.skipped for name, dataset in pairs
            if (variant := load_variant(name, dataset)).skipped is not None}
