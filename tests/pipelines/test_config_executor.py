"""A YAML config's executor fields take effect from Python (``config.build(sf).run()``), as from the command line."""

from __future__ import annotations

from typing import Any

import pytest

from hopkit.errors import ConfigError
from hopkit.executors.choice import ExecutorChoice
from hopkit.executors.ray_actors import RayExecutor
from hopkit.pipelines.configs import instantiate_pipeline_config
from hopkit.records import Corpus, Paragraph, Query
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store

pytestmark = pytest.mark.unit


def stored(url: str) -> Any:
    session_factory = DBConnection(url).get_session_factory()
    Store(session_factory).add_corpus(Corpus("toy", (Paragraph(0, "Ville0", "Ville0 is a town."),),
                                             (Query(id="q0", text="Where?", answers=("Ville0",)),)))
    return session_factory


def config(**fields: Any) -> Any:
    return instantiate_pipeline_config({"method": "nor", "name": "nor", "llm": "openai-compatible", "dataset": "toy",
                                        **fields}, "test.yaml")


def test_the_ray_fields_of_a_config_reach_the_executor_of_its_run(tmp_path: Any) -> None:
    session_factory = stored(f"sqlite:///{tmp_path / 'hopkit.db'}")
    pipeline = config(executor="ray", workers=2, question_timeout=30, ray_env=["HOPKIT_*"]).build(session_factory)
    assert pipeline.default_executor == ExecutorChoice("ray", workers=2, question_timeout=30.0,
                                                       forward_env=("HOPKIT_*",))
    answering = pipeline.executor(pipeline.default_executor, None, "toy")
    assert isinstance(answering, RayExecutor)
    assert (answering.workers, answering.question_timeout) == (2, 30.0)
    assert config().build(session_factory).default_executor == ExecutorChoice()


@pytest.mark.parametrize("fields", [{"workers": 4}, {"question_timeout": 60}, {"executor": "threads", "workers": 2}])
def test_ray_fields_without_the_ray_executor_are_refused_from_python_too(tmp_path: Any, fields: Any) -> None:
    session_factory = stored(f"sqlite:///{tmp_path / 'hopkit.db'}")
    with pytest.raises(ConfigError, match="apply to the Ray executor"):
        config(**fields).build(session_factory).run(progress=False)


def test_the_run_plan_carries_the_config_s_executor_and_pickles_with_it(tmp_path: Any) -> None:
    import pickle

    session_factory = stored(f"sqlite:///{tmp_path / 'hopkit.db'}")
    pipeline = config(executor="ray", workers=3, ray_env=["HOPKIT_*"]).build(session_factory)
    plan = pickle.loads(pickle.dumps(pipeline.run_plan()))
    assert plan.executor == ExecutorChoice("ray", workers=3, forward_env=("HOPKIT_*",))
    assert plan.pipeline(session_factory).default_executor == plan.executor  # a rebuilt facade keeps it
    assert pipeline.run_plan(executor="threads").executor == ExecutorChoice()  # run(executor=) wins
