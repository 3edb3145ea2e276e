"""Putting a run together: a pipeline config, what an entrance changes of it, and the pipeline it builds.

Every entrance (``hopkit run``, ``hopkit sweep`` and ``hopkit reproduce``, the campaign's variants) assembles
its runs here, in one order: the entrance's changes over the config (its executor fields included), the
calibrated threshold stored for a declared experiment, the config checked, the pipeline built (with the
entrance's loaded model, if it has one).

``--retrieval`` has one rule everywhere: it changes the retriever of each method that retrieves; a method that
does not retrieve (NoR) runs without it (:attr:`Assembly.retrieves`); a command none of whose runs
retrieves refuses it (:func:`refuse_unused_retrieval`), since it would change nothing.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from sqlalchemy.orm import Session, sessionmaker

from hopkit.pipelines.stored_threshold import with_stored_threshold
from hopkit.errors import ConfigError
from hopkit.executors.choice import ExecutorChoice
from hopkit.pipelines.base import GenerationPipeline
from hopkit.pipelines.configs import instantiate_pipeline_config
from hopkit.pipelines.plan import RunPlan
from hopkit.pipelines.retrieval.base import resolve_dataset
from hopkit.store.store import Store

SessionFactory = sessionmaker[Session]


@dataclass(frozen=True)
class Changes:
    """What an entrance changes of a pipeline config (None: the config's own).

    Attributes:
        retrieval: the retrieval config of a method that retrieves (``--retrieval``).
        executor: executor fields (``executor``, ``workers``, ...) over the config's.
        top_k: the paragraphs per retrieval (``--top-k``), refused by a method without a K.
    """

    dataset: str | None = None
    llm: str | None = None
    name: str | None = None
    batch_size: int | None = None
    retrieval: str | None = None
    executor: Mapping[str, Any] = field(default_factory=dict)
    top_k: int | None = None

    def over(self, spec: Mapping[str, Any]) -> dict[str, Any]:
        """``spec`` with these changes."""
        changed = dict(spec)
        for option, value in (("dataset", self.dataset), ("llm", self.llm), ("name", self.name),
                              ("batch_size", self.batch_size), ("retrieval_pipeline_name", self.retrieval)):
            if value is not None:
                changed[option] = value
        changed.update(self.executor)
        return changed


@dataclass(frozen=True)
class Assembly:
    """A run put together: its config (the entrance's ``top_k`` folded in) and the pipeline built from it.

    Attributes:
        threshold: which calibrated threshold was read from the store, and from where (None: none).
    """

    config: Any
    pipeline: GenerationPipeline
    threshold: str | None

    @property
    def executor(self) -> ExecutorChoice:
        """Where the run answers its questions: the config's executor fields, the entrance's over them."""
        return getattr(self.pipeline, "default_executor", ExecutorChoice())

    @property
    def top_k(self) -> int | None:
        """The paragraphs per retrieval the config sets (the entrance's ``--top-k`` over its own; None: the
        method's own K, or a method without one)."""
        return getattr(self.config, "top_k", None)

    @property
    def retrieves(self) -> bool:
        return getattr(self.pipeline, "retrieval_pipeline", None) is not None

    def check(self) -> None:
        """Before any question is asked: the dataset is stored and the method takes these options.

        Raises:
            ConfigError: naming what is wrong.
        """
        self.pipeline.run_spec()

    def plan(self) -> RunPlan:
        """The run by value, as every executor builds it.

        Raises:
            ConfigError: the pipeline is not a registered method's (it has no plan).
        """
        run_plan = getattr(self.pipeline, "run_plan", None)
        if run_plan is None:
            raise ConfigError(f"{type(self.pipeline).__name__} has no run plan: it is not a registered method's")
        return run_plan(executor=self.executor)

    def run(self, **options: Any) -> dict[str, Any]:
        """:meth:`GenerationPipeline.run` with this assembly's executor."""
        return self.pipeline.run(executor=self.executor, **options)


def assemble(spec: Mapping[str, Any], source: str, store: Callable[[], SessionFactory],
             changes: Changes = Changes(), *, model: Any = None) -> Assembly:
    """The run ``spec`` (a pipeline config read from ``source``) describes, with ``changes``.

    Args:
        store: opens the store's session factory, called once it is needed (a wrong option is reported
            before a missing store).
        model: a loaded model to answer with instead of loading the config's ``llm`` (its name still
            chooses the calibrated threshold).

    Raises:
        ConfigError: naming ``source`` and the field, as :func:`instantiate_pipeline_config` does.
    """
    spec = changes.over(spec)
    threshold = None
    session_factory: SessionFactory | None = None
    if "experiment" in spec:  # its settings depend on the dataset (the only one stored, if not given)
        session_factory = store()
        spec["dataset"] = spec.get("dataset") or resolve_dataset(Store(session_factory), None)
        spec, threshold = with_stored_threshold(spec, session_factory)
    config = instantiate_pipeline_config(spec, source)  # checks _target_ and every option first
    sets_top_k = "top_k" in {item.name for item in dataclasses.fields(config)}
    if changes.top_k is not None and sets_top_k:
        config = dataclasses.replace(config, top_k=changes.top_k)  # the facade sets the option it names
    pipeline = config.build(session_factory or store())
    if changes.top_k is not None and not sets_top_k:  # a method without a K: refused in the words every door uses
        pipeline._check_top_k(changes.top_k)
        raise ConfigError(f"{source}: --top-k {changes.top_k}: the config has no field 'top_k' to set")
    if model is not None:
        pipeline.llm = model  # the constructor only kept the config's name; nothing was loaded from it
    return Assembly(config, pipeline, threshold)


def refuse_unused_retrieval(retrieval: str | None, assemblies: Sequence[Assembly], source: str) -> None:
    """``--retrieval`` given where no run retrieves would change nothing: refused.

    Raises:
        ConfigError: naming the option and ``source``.
    """
    if retrieval is not None and assemblies and not any(assembly.retrieves for assembly in assemblies):
        runs = "a method that does not" if len(assemblies) == 1 else "only methods that do not"
        raise ConfigError(f"--retrieval {retrieval}: {source} runs {runs} retrieve; leave the option out")
