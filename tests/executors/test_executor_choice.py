"""Choosing the executor: config fields under command-line options, checked before anything runs."""

from __future__ import annotations

import argparse

import pytest

from hopkit.cli_executor import add_executor_arguments, chosen_executor
from hopkit.config import instantiate
from hopkit.errors import ConfigError
from hopkit.executors.choice import ExecutorChoice, executor_choice
from hopkit.executors.ray_actors import RayExecutor
from hopkit.pipelines.generation.registered import config_target

pytestmark = pytest.mark.unit


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_executor_arguments(parser)
    return parser.parse_args(list(argv))


def config(**fields: object) -> object:
    spec = {"_target_": config_target("nor"), "name": "nor", "retrieval_pipeline_name": None, **fields}
    return instantiate(spec, "test.yaml", kind="pipelines")


def test_threads_by_default_and_the_command_line_over_the_config() -> None:
    assert chosen_executor(parse(), config()) == ExecutorChoice()
    from_config = config(executor="ray", ray_address="auto", workers=8, cpus_per_worker=0.5)
    assert chosen_executor(parse(), from_config) == ExecutorChoice("ray", "auto", 8, 0.5)
    assert chosen_executor(parse("--workers", "2", "--ray-address", "ray://h:10001"), from_config) == \
        ExecutorChoice("ray", "ray://h:10001", 2, 0.5)
    assert executor_choice("ray") == ExecutorChoice("ray") and executor_choice(None) == ExecutorChoice()


def test_wrong_choices_are_refused_with_the_option_named() -> None:
    with pytest.raises(ConfigError, match="executor.*threads, ray.*'spark'"):
        executor_choice("spark")
    with pytest.raises(ConfigError, match="ray_address and workers apply to the Ray executor"):
        chosen_executor(parse("--workers", "4"), config())
    with pytest.raises(ConfigError, match="workers"):
        chosen_executor(parse("--executor", "ray", "--workers", "0"), config())
    with pytest.raises(ConfigError, match="field 'executor'"):
        config(executor="dask")
    with pytest.raises(ConfigError, match="in-memory SQLite"):
        RayExecutor(object(), "sqlite://")
