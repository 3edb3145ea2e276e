"""Choosing the executor: config fields under command-line options, checked before anything runs."""

from __future__ import annotations

import argparse

import pytest

from hopkit.pipelines.configs import instantiate_pipeline_config
from hopkit.cli.executor import add_executor_arguments, chosen_executor
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
    return instantiate_pipeline_config(spec, "test.yaml")


def test_threads_by_default_and_the_command_line_over_the_config() -> None:
    assert chosen_executor(parse(), config()) == ExecutorChoice()
    from_config = config(executor="ray", ray_address="auto", workers=8, cpus_per_worker=0.5)
    assert chosen_executor(parse(), from_config) == ExecutorChoice("ray", "auto", 8, 0.5)
    assert chosen_executor(parse("--workers", "2", "--ray-address", "ray://h:10001"), from_config) == \
        ExecutorChoice("ray", "ray://h:10001", 2, 0.5)
    assert executor_choice("ray") == ExecutorChoice("ray") and executor_choice(None) == ExecutorChoice()


def test_the_variables_workers_get_are_the_users_choice() -> None:
    assert chosen_executor(parse("--executor", "ray"), config()).forward_env is None  # the default prefixes
    assert chosen_executor(parse("--executor", "ray", "--ray-env", "none"), config()).forward_env == ()
    chosen = chosen_executor(parse("--executor", "ray", "--ray-env", "HOPKIT_*,OPENAI_BASE_URL"), config())
    assert chosen.forward_env == ("HOPKIT_*", "OPENAI_BASE_URL")
    assert chosen_executor(parse(), config(executor="ray", ray_env=["HF_TOKEN"])).forward_env == ("HF_TOKEN",)


def test_forwarded_variables_follow_the_patterns(monkeypatch: pytest.MonkeyPatch) -> None:
    from hopkit.executors.ray_cluster import forwarded_environment

    monkeypatch.setenv("HOPKIT_HOME", "/h")
    monkeypatch.setenv("OPENAI_API_KEY", "secret")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
    assert {"HOPKIT_HOME", "OPENAI_API_KEY", "OPENAI_BASE_URL"} <= set(forwarded_environment())
    chosen = forwarded_environment(["HOPKIT_*", "OPENAI_BASE_URL"])
    assert "OPENAI_API_KEY" not in chosen and {"HOPKIT_HOME", "OPENAI_BASE_URL", "PYTHONPATH"} <= set(chosen)
    assert set(forwarded_environment([])) == {"PYTHONPATH"}


def test_wrong_choices_are_refused_with_the_option_named() -> None:
    with pytest.raises(ConfigError, match="executor.*threads, ray.*'spark'"):
        executor_choice("spark")
    with pytest.raises(ConfigError, match="ray_address, workers, question_timeout and ray_env apply to the Ray"):
        chosen_executor(parse("--workers", "4"), config())
    with pytest.raises(ConfigError, match="apply to the Ray executor"):
        chosen_executor(parse("--ray-env", "none"), config())
    with pytest.raises(ConfigError, match="question_timeout"):
        chosen_executor(parse("--executor", "ray", "--question-timeout", "0"), config())
    with pytest.raises(ConfigError, match="workers"):
        chosen_executor(parse("--executor", "ray", "--workers", "0"), config())
    with pytest.raises(ConfigError, match="field 'executor'"):
        config(executor="dask")
    with pytest.raises(ConfigError, match="in-memory SQLite"):
        RayExecutor(object(), "sqlite://")
