"""Where earlier releases kept the declared experiments; they are :mod:`hopkit.pipelines.experiments` now, in the
run wing."""

from hopkit.pipelines.experiments import (DECLARED_SUFFIX, DEFAULT_DEMONSTRATIONS, EXPERIMENTS_FILE, OWN_KEYS,
                                          Calibrated, Experiment, datasets_with_own_keys, declared,
                                          demonstration_datasets, experiment_names, experiment_spec, load_experiment)

__all__ = ["DECLARED_SUFFIX", "DEFAULT_DEMONSTRATIONS", "EXPERIMENTS_FILE", "OWN_KEYS", "Calibrated", "Experiment",
           "datasets_with_own_keys", "declared", "demonstration_datasets", "experiment_names", "experiment_spec",
           "load_experiment"]
