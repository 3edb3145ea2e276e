"""A run plan: everything a run is, by value, the one thing every executor builds a method from.

``pipeline.run_plan(top_k, executor)`` gives a :class:`RunPlan`: the method's facade class and every one
of its options (``top_k`` folded in as the option it sets), the retrieval as data
(:class:`RetrievalSpec`), the LLM's config name, the dataset, the batch size and the executor choice.
It pickles (with the LLM by name), so Ray's workers build the method from it as this process's threads
do (:meth:`RunPlan.build`), and :meth:`RunPlan.pipeline` rebuilds the facade, whose run id is the
original's. The plan holds the facade's class, which pickles by its name, so this module need not know
where the facades are made.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from sqlalchemy.orm import Session, sessionmaker

from hopkit.errors import ConfigError
from hopkit.executors.choice import ExecutorChoice
from hopkit.llm.protocol import LLM
from hopkit.methods.protocol import Method, warm_up
from hopkit.pipelines.base import GenerationPipeline
from hopkit.pipelines.retrieval.base import RetrievalPipeline


@dataclass(frozen=True)
class RetrievalSpec:
    """A retrieval pipeline by value: its class, name, dataset, index folder and options."""

    target: str
    name: str
    dataset: str | None
    index_root: str | None
    options: Mapping[str, Any]

    @classmethod
    def of(cls, pipeline: RetrievalPipeline) -> RetrievalSpec:
        kind = type(pipeline)
        return cls(f"{kind.__module__}.{kind.__qualname__}", pipeline.name, pipeline.dataset,
                   None if pipeline.index_root is None else str(pipeline.index_root), dict(pipeline.options))

    def build(self, session_factory: sessionmaker[Session]) -> RetrievalPipeline:
        module, _, name = self.target.rpartition(".")
        kind = getattr(importlib.import_module(module), name)
        built = kind(session_factory, self.name, self.dataset, self.index_root, **self.options)
        if not isinstance(built, RetrievalPipeline):
            raise ConfigError(f"retrieval spec: {self.target} did not build a retrieval pipeline")
        return built


@dataclass(frozen=True)
class RunPlan:
    """One run, by value (made by ``pipeline.run_plan()``; ``pipeline.method_spec()`` for another process).

    Attributes:
        facade: the registered method's facade class (``IRCoTGenerationPipeline``), which pickles by name.
        name: the run's name.
        options: the method's options as given, every one (``every_option`` of its options class: an option
            pinned to a value the run's identity leaves out must reach the rebuilt method too), with the
            run's ``top_k`` already set as the option it names (IRCoT's ``k_per_step``).
        llm: the LLM's config name or ``hf://`` name (a loaded model only in a plan for this process's
            threads: it does not pickle).
        retrieval: the retrieval pipeline (None for a method that does not retrieve).
        dataset: the stored dataset (None: the pipelines' default).
        batch_size: questions in flight at once.
        executor: where the questions are answered (threads of this process, or Ray and its fields).
    """

    facade: Callable[..., GenerationPipeline]
    name: str
    options: Mapping[str, Any]
    llm: str | LLM
    retrieval: RetrievalSpec | None
    dataset: str | None
    batch_size: int = 10
    executor: ExecutorChoice = ExecutorChoice()

    def pipeline(self, session_factory: sessionmaker[Session], llm: LLM | None = None,
                 retrieval: RetrievalPipeline | None = None) -> GenerationPipeline:
        """The facade this plan was taken from, rebuilt on ``session_factory`` (with ``llm``, a model this
        process has loaded already, instead of loading the plan's, and ``retrieval``, a retrieval pipeline it
        holds already, instead of building the plan's)."""
        if retrieval is None and self.retrieval is not None:
            retrieval = self.retrieval.build(session_factory)
        given = [] if retrieval is None else [retrieval]
        return self.facade(session_factory, self.name, self.llm if llm is None else llm, *given,
                           dataset=self.dataset, batch_size=self.batch_size, executor=self.executor,
                           **self.options)

    def build(self, session_factory: sessionmaker[Session], *, llm: LLM | None = None,
              retrieval: RetrievalPipeline | None = None, warm: bool = True) -> Method:
        """The method, rebuilt (warmed up unless ``warm`` is False), ready for its first question.

        Ray's workers build it from the pickled plan; the threads of the process that made the plan
        build it the same way, with the model and the retrieval pipeline that process holds (``llm``,
        ``retrieval``).
        """
        from hopkit.store.store import Store

        pipeline = self.pipeline(session_factory, llm, retrieval)
        dataset = pipeline._dataset(Store(session_factory))
        method = pipeline.build_method(pipeline._llm(), pipeline._retriever(dataset), None, dataset)
        if warm:
            warm_up(method)
        return method
