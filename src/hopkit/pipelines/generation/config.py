"""The YAML-facing config shared by every generation pipeline.

``hopkit run CONFIG.yaml`` instantiates the config class named by ``_target_`` with
the file's options, then calls ``build(session_factory)`` to get the facade. Every
field is checked when the config is constructed (types and ranges from the
annotations, see :mod:`hopkit.options`; the nested ``reader``, ``demonstrations``
and IRCoT ``iirc`` through the configs they become), so a wrong value is reported
with the file's name before anything is loaded. Each method's config class is derived
from its registry entry (:mod:`hopkit.pipelines.generation.registered`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from hopkit.config import load_named
from hopkit.errors import ConfigError
from hopkit.executors.choice import ExecutorChoice
from hopkit.terminal import name_problem
from hopkit.options import NonEmptyStr, PositiveFloat, PositiveInt, check_fields
from hopkit.methods.demonstrations import DemonstrationSpec, load_demonstrations
from hopkit.pipelines.retrieval.base import RetrievalPipeline

__all__ = ["DemonstrationSpec", "GenerationPipelineConfig", "load_demonstrations"]


@dataclass(frozen=True)
class GenerationPipelineConfig:
    """Options every generation pipeline config has.

    Attributes:
        name: the run's name.
        llm: name of a config in ``configs/llm/``, or a GGUF file on the Hugging Face Hub
            (``hf://OWNER/NAME[@REVISION]/FILE.gguf``, see :func:`hopkit.config.load_llm`).
        retrieval_pipeline_name: name of a config in ``configs/retrieval/`` (None: no retrieval).
        dataset: the stored dataset to run on (None: the only one in the store).
        batch_size: questions in flight at once (with backends that serve concurrent calls).
        executor: where the questions are answered: ``threads`` (this process) or ``ray`` (workers of
            a Ray cluster, docs/cluster.md); ``hopkit run --executor`` overrides it.
        ray_address: the Ray cluster to join (None: start Ray on this machine).
        workers: Ray workers answering at once (None: one per CPU of the cluster).
        cpus_per_worker: CPUs Ray reserves per worker.
        question_timeout: seconds a Ray worker may take on one question before it is replaced (None: 1800).
        ray_env: the variables Ray workers get from the driver, as names or patterns (None: every
            ``HOPKIT_*``, ``OPENAI_*`` and ``HF_*``; an empty list: none).
    """

    name: NonEmptyStr
    llm: NonEmptyStr = "smollm2"
    retrieval_pipeline_name: str | None = "bm25"
    dataset: str | None = None
    batch_size: PositiveInt = 10
    executor: Literal["threads", "ray"] = "threads"
    ray_address: str | None = None
    workers: PositiveInt | None = None
    cpus_per_worker: PositiveFloat = 1.0
    question_timeout: PositiveFloat | None = None
    ray_env: list[str] | None = None

    def __post_init__(self) -> None:
        check_fields(self, "field")  # every subclass's fields too
        problem = name_problem(self.name)
        if problem:
            raise ConfigError(f"field 'name': {problem}")

    def executor_choice(self) -> ExecutorChoice:
        """Where this config's run answers its questions (``executor`` and the Ray fields).

        Raises:
            ConfigError: Ray fields (``workers``, ``question_timeout``...) without ``executor: ray``.
        """
        forward_env = None if self.ray_env is None else tuple(self.ray_env)
        return ExecutorChoice(self.executor, self.ray_address, self.workers, self.cpus_per_worker,
                              self.question_timeout, forward_env)

    def retrieval_pipeline(self, session_factory: Any) -> RetrievalPipeline | None:
        if self.retrieval_pipeline_name is None:
            return None
        pipeline = load_named("retrieval", self.retrieval_pipeline_name, session_factory=session_factory)
        if not isinstance(pipeline, RetrievalPipeline):
            raise ConfigError(f"retrieval config {self.retrieval_pipeline_name!r} does not build a retrieval pipeline")
        return pipeline
