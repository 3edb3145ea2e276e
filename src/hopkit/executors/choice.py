"""Which executor a run uses, as a config file, the command line or Python names it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from hopkit.errors import ConfigError
from hopkit.options import PositiveFloat, PositiveInt, check_fields

EXECUTORS = ("threads", "ray")


@dataclass(frozen=True)
class ExecutorChoice:
    """Where a run's questions are answered.

    Attributes:
        kind: ``"threads"`` (this process; ``batch_size`` questions at once with a model server)
            or ``"ray"`` (actors of a Ray cluster, each rebuilding the method).
        address: the Ray cluster (``"auto"``, ``"ray://HOST:10001"``); None starts Ray on this machine.
        workers: Ray actors answering at once; None: one per ``cpus_per_worker`` CPUs of the cluster.
        cpus_per_worker: CPUs Ray reserves per actor (below 1 when actors wait on a model server).
        question_timeout: seconds a Ray actor may take on one question before it is taken for hung,
            killed and replaced (None: :data:`~hopkit.executors.ray_actors.QUESTION_TIMEOUT_SECONDS`).
        forward_env: names or shell patterns of the variables Ray workers get from the driver (None:
            every ``HOPKIT_*``, ``OPENAI_*`` and ``HF_*``; empty: none).
    """

    kind: Literal["threads", "ray"] = "threads"
    address: str | None = None
    workers: PositiveInt | None = None
    cpus_per_worker: PositiveFloat = 1.0
    question_timeout: PositiveFloat | None = None
    forward_env: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.kind not in EXECUTORS:
            raise ConfigError(f"executor: expected one of {', '.join(EXECUTORS)}, got {self.kind!r}")
        check_fields(self, "executor option")
        if self.kind == "threads" and (self.address is not None or self.workers is not None
                                       or self.question_timeout is not None or self.forward_env is not None):
            raise ConfigError("ray_address, workers, question_timeout and ray_env apply to the Ray executor: add "
                              "--executor ray (executor: ray in a config), or leave them out")
        if self.forward_env is not None and not all(isinstance(name, str) and name for name in self.forward_env):
            raise ConfigError(f"ray_env: expected variable names or patterns such as 'HOPKIT_*', got "
                              f"{list(self.forward_env)!r}")


def executor_choice(value: str | ExecutorChoice | None) -> ExecutorChoice:
    """``"ray"``, ``"threads"``, None (threads) or a choice as it is."""
    if value is None:
        return ExecutorChoice()
    if isinstance(value, ExecutorChoice):
        return value
    if isinstance(value, str):
        return ExecutorChoice(value)  # type: ignore[arg-type]
    raise ConfigError(f"executor: expected 'threads', 'ray' or an ExecutorChoice, got {type(value).__name__}")
