"""Each method's experiments, declared once in its package: the paper's settings per dataset.

A method package holds ``experiments.yaml``: a mapping from an experiment's name (``flare``,
``searchain-no-verification``) to a pipeline config (``method:`` and the method's options, as
``hopkit run`` reads them) plus a few keys of its own, taken out before hopkit builds it:

- ``description``: the experiment in one sentence, for reports.
- ``extends``: another experiment whose keys this one starts from (its own keys win).
- ``per_dataset``: for a dataset, keys that replace the experiment's own there; ``skip: REASON``
  there means the experiment is not run on that dataset.
- ``calibrated``: ``{threshold: KIND, task: GROUP}``, a threshold that must be measured for the
  model it runs with (MIGRES's δ, SearChain's θ) and by which calibration rule.

A folder's file may also depart from a declared experiment under the same name, by extending it
(``alce-vanilla.yaml`` with ``extends: alce-vanilla`` and ``hits: 10``): the benchmarks record their
departures from a paper's settings that way.

``demonstrations`` without a ``dataset`` are those of the dataset the run is on; on a dataset with none
of its own (a user's own dataset) they are :data:`DEFAULT_DEMONSTRATIONS`' and the experiment says so
(:attr:`Experiment.fallback`), which the run prints in one line at its start. Shipped pipeline
configs name an experiment (``experiment: flare``) and the benchmarks' variants extend them, so a
paper setting is written in one place. Folders of further experiment files (one per file, named
by the file) can be added, as the benchmarks add their own variants.
"""

from __future__ import annotations

import copy
import functools
import importlib.util
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from hopkit.config import load_yaml
from hopkit.errors import ConfigError, UnknownNameError

logger = logging.getLogger(__name__)

EXPERIMENTS_FILE = "experiments.yaml"
#: Whose demonstrations a few-shot experiment takes on a dataset that has none of its own (a user's own
#: dataset): HotpotQA's, the IRCoT authors' first set (docs/configs.md). A config chooses others with
#: ``demonstrations: {dataset: NAME}``.
DEFAULT_DEMONSTRATIONS = "hotpotqa"
OWN_KEYS = ("description", "extends", "per_dataset", "calibrated", "skip")
DECLARED_SUFFIX = "@declared"  # a declared experiment that a folder's file of the same name departs from


@dataclass(frozen=True)
class Calibrated:
    """A threshold measured for the model: its kind (``migres_relevance``...) and task group."""

    threshold: str
    task: str


@dataclass(frozen=True)
class Experiment:
    """One experiment on one dataset: the pipeline config hopkit builds, and what is said about it.

    Attributes:
        name: the experiment.
        dataset: the dataset it is for.
        config: the pipeline config (``method``, ``name``, ``dataset`` and the options).
        description: the experiment in one sentence.
        source: the file that declares it, for messages.
        calibrated: the threshold it needs measured on this dataset, if any.
        skipped: why it is not run on this dataset (None: it is run).
        fallback: what it takes for want of declared settings for this dataset, in words (a user's own
            dataset: :data:`DEFAULT_DEMONSTRATIONS`' demonstrations); None where its settings are declared.
    """

    name: str
    dataset: str
    config: Mapping[str, Any]
    description: str
    source: str
    calibrated: Calibrated | None = None
    skipped: str | None = None
    fallback: str | None = None


def _package_files() -> list[Path]:
    from hopkit.methods.registry import entries

    files = []
    for entry in entries().values():  # the file beside the module that builds the method
        spec = importlib.util.find_spec(entry.build.__module__)
        if spec is None or spec.origin is None:
            continue
        path = Path(spec.origin).parent / EXPERIMENTS_FILE
        if path.exists() and path not in files:
            files.append(path)
    return files


def declared(folders: Iterable[Path] = ()) -> dict[str, tuple[dict[str, Any], str]]:
    """Every experiment's own keys and its source: the method packages' files, then one file per
    experiment in ``folders`` (read once per process; each call gets its own copy).

    Raises:
        ConfigError: a file that is not a mapping of experiments, or a name declared twice.
    """
    return copy.deepcopy(_read_declarations(tuple(str(folder) for folder in folders)))


@functools.lru_cache(maxsize=8)
def _read_declarations(folders: tuple[str, ...]) -> dict[str, tuple[dict[str, Any], str]]:
    found: dict[str, tuple[dict[str, Any], str]] = {}

    def add(name: str, keys: Any, source: str) -> None:
        if not isinstance(keys, dict):
            raise ConfigError(f"{source}: experiment {name!r} must be a mapping of options")
        if name in found:
            raise ConfigError(f"{source}: experiment {name!r} is declared already, in {found[name][1]}")
        found[name] = (dict(keys), source)

    for path in _package_files():
        for name, keys in load_yaml(path).items():
            add(str(name), keys, str(path))
    for folder in folders:
        for path in sorted(Path(folder).glob("*.yaml")):
            keys = load_yaml(path)
            if path.stem in found and isinstance(keys, dict) and keys.get("extends") == path.stem:
                # the folder's departure from the declared experiment, under the same name
                declared_name = f"{path.stem}{DECLARED_SUFFIX}"
                found[declared_name] = found.pop(path.stem)
                keys = {**keys, "extends": declared_name}
            add(path.stem, keys, str(path))
    return found


def experiment_names(folders: Iterable[Path] = ()) -> list[str]:
    return sorted(name for name in declared(folders) if not name.endswith(DECLARED_SUFFIX))


def _merged(name: str, known: Mapping[str, tuple[dict[str, Any], str]], seen: tuple[str, ...] = ()) -> dict[str, Any]:
    """The experiment's keys with those of the experiments it extends (``per_dataset`` merged per dataset)."""
    if name not in known:
        raise UnknownNameError("experiment", name, sorted(known))
    own, source = known[name]
    own = dict(own)
    if name in seen:
        raise ConfigError(f"{source}: 'extends' goes round in a circle: {' -> '.join((*seen, name))}")
    parent = own.pop("extends", None)
    if parent is None:
        return own
    merged = _merged(str(parent), known, (*seen, name))
    per_dataset = {dataset: dict(keys) for dataset, keys in merged.get("per_dataset", {}).items()}
    for dataset, keys in own.pop("per_dataset", {}).items():
        per_dataset.setdefault(dataset, {}).update(keys)
    merged.update(own)
    if per_dataset:
        merged["per_dataset"] = per_dataset
    return merged


def load_experiment(name: str, dataset: str, folders: Iterable[Path] = ()) -> Experiment:
    """Experiment ``name`` as it runs on ``dataset`` (its config named ``name``, not suffixed).

    Raises:
        UnknownNameError: no experiment has that name (the message lists them).
        ConfigError: its declaration extends itself in a circle, or is not a mapping.
    """
    known = declared(folders)
    spec = _merged(name, known)
    spec.update(spec.pop("per_dataset", {}).get(dataset, {}))
    own = {key: spec.pop(key, None) for key in OWN_KEYS}
    fallback = None
    demonstrations = spec.get("demonstrations")
    if isinstance(demonstrations, Mapping) and "dataset" not in demonstrations:
        chosen = dataset if dataset in demonstration_datasets() else DEFAULT_DEMONSTRATIONS
        spec["demonstrations"] = {**demonstrations, "dataset": chosen}
        if chosen != dataset:
            fallback = (f"dataset {dataset!r} has no declared setting; using {chosen}'s demonstrations "
                        "(set demonstrations.dataset to choose)")
    spec.setdefault("name", name)
    spec["dataset"] = dataset
    calibrated = Calibrated(**own["calibrated"]) if own["calibrated"] is not None else None
    return Experiment(name, dataset, spec, own["description"] or name, known[name][1], calibrated, own["skip"],
                      fallback)


def demonstration_datasets() -> tuple[str, ...]:
    """The datasets that have demonstrations of their own (the IRCoT authors' four)."""
    from hopkit.prompts.ircot_files import DATASETS

    return DATASETS


def datasets_with_own_keys(name: str, folders: Iterable[Path] = ()) -> list[str]:
    """The datasets an experiment (or one it extends) sets keys for."""
    return list(_merged(name, declared(folders)).get("per_dataset", {}))


def experiment_spec(spec: Mapping[str, Any], source: str) -> dict[str, Any]:
    """A pipeline config that names an experiment (``experiment: flare``), as the experiment's settings
    for the config's ``dataset`` with the config's other keys over them (``llm``, ``name``...).

    ``demonstrations`` with a ``dataset`` replace the declared ones; without one (``{distractors: 1}``) they
    go over the declared ones. Where the experiment falls back for want of settings declared for the
    dataset (:attr:`Experiment.fallback`) and the config chose no demonstrations, it logs one warning
    saying so (the run's first line on the console).

    Raises:
        ConfigError: naming ``source``: no dataset to choose the settings by, an unknown experiment, or
            one not run on that dataset (and why).
    """
    name, dataset = str(spec["experiment"]), spec.get("dataset")
    if not dataset:
        raise ConfigError(f"{source}: experiment {name!r} has its paper's settings per dataset: give the dataset "
                          "(`--dataset NAME`, or dataset: in the config)")
    try:
        experiment = load_experiment(name, str(dataset))
    except UnknownNameError as exc:
        raise ConfigError(f"{source}: field 'experiment': {exc}") from None
    if experiment.skipped is not None:
        raise ConfigError(f"{source}: experiment {name!r} is not run on {dataset!r}: {experiment.skipped}")
    own = {key: value for key, value in spec.items() if key != "experiment"}
    declared_demonstrations, chosen = experiment.config.get("demonstrations"), own.get("demonstrations")
    partly = isinstance(chosen, Mapping) and "dataset" not in chosen  # {distractors: 1}: the declared set's
    if partly and isinstance(declared_demonstrations, Mapping):
        own["demonstrations"] = {**declared_demonstrations, **chosen}
    if experiment.fallback is not None and ("demonstrations" not in own or partly):  # the config chose none
        logger.warning("%s: %s", own.get("name") or name, experiment.fallback)
    return {**experiment.config, **own}
