"""The generation-pipeline facade shared by NoR, OneR and IRCoT.

Construction only stores what it is given. ``run()`` resolves the dataset, loads
the LLM and the retriever, builds the pure method and hands it, the store and the
run's full configuration to the runner. ``_generate()`` answers one free-text
question without storing anything.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from typing import Any, Callable, ClassVar, Mapping

from sqlalchemy.orm import Session, sessionmaker

from hopkit.config import load_llm, named_spec
from hopkit.errors import ConfigError
from hopkit.llm.langchain import as_llm
from hopkit.llm.meter import MeteredLLM
from hopkit.llm.protocol import CONCURRENT_CALLS, LLM
from hopkit.llm.capabilities import supports
from hopkit.methods.protocol import Method
from hopkit.options import NonEmptyStr, PositiveInt, check_arguments, refuse_top_k
from hopkit.pipelines.retrieval.base import RetrievalPipeline, resolve_dataset
from hopkit.records import GenerationResult, Query
from hopkit.retrieval.protocol import Retriever
from hopkit.executors.choice import ExecutorChoice, executor_choice
from hopkit.executors.protocol import Executor
from hopkit.executors.threads import ThreadExecutor
from hopkit.pipelines.runner import RunStart, run_with
from hopkit.store.records import RunSpec
from hopkit.store.store import Store


logger = logging.getLogger(__name__)


def database_url(session_factory: sessionmaker[Session]) -> str:
    """The URL of the store ``session_factory`` opens sessions on, password included (for workers)."""
    bind = session_factory.kw.get("bind")
    if bind is None:
        raise ConfigError("the session factory is bound to no database")
    return bind.url.render_as_string(hide_password=False)


def supports_concurrency(llm: Any) -> bool:
    """Whether ``llm`` declares that it serves concurrent calls (wrappers declare what they wrap)."""
    return supports(llm, CONCURRENT_CALLS)


class GenerationPipeline(ABC):
    """A method wired to the store, an LLM and (for retrieval methods) a retrieval pipeline.

    Args:
        session_factory: the store's session factory (``DBConnection.get_session_factory()``).
        name: the run's name (the run itself is identified by its configuration's hash).
        llm: an LLM, a LangChain chat model (e.g. ``ChatOpenAI(model=...)``), the
            name of a config in ``configs/llm/``, or an ``hf://`` GGUF file on the Hub
            (:func:`hopkit.config.load_llm`).
        retrieval_pipeline: where paragraphs come from (None for NoR).
        dataset: the stored dataset to run on; None = the retrieval pipeline's, or the
            only dataset in the store.
        batch_size: questions in flight at once when the LLM backend serves concurrent
            calls (a server); a local llama.cpp model answers one question at a time.
        executor: where ``run()`` answers the questions when it is not told (a YAML config's
            ``executor`` and Ray fields): ``"threads"`` (None) or ``"ray"``, or an
            :class:`~hopkit.executors.ExecutorChoice`.
    """

    method_name: ClassVar[str]
    #: The method's name in messages (``NoR``); its ``method_name`` when empty.
    method_title: ClassVar[str] = ""
    #: The method's option that ``top_k`` (``run(top_k=)``, ``hopkit run --top-k``) sets: its K, the
    #: paragraphs per retrieval; None for a method without one, which refuses ``top_k``.
    top_k_option: ClassVar[str | None] = None
    #: Why a method without a K has none, and what sets how much it retrieves instead.
    no_top_k_reason: ClassVar[str] = "it has no number of paragraphs per retrieval"

    def __init__(self, session_factory: sessionmaker[Session], name: NonEmptyStr, llm: Any,
                 retrieval_pipeline: RetrievalPipeline | None = None, dataset: str | None = None,
                 batch_size: PositiveInt = 10, *, executor: str | ExecutorChoice | None = None) -> None:
        check_arguments(GenerationPipeline.__init__, "option", name=name, dataset=dataset, batch_size=batch_size)
        self.session_factory = session_factory
        self.name = name
        self.llm = llm
        self.retrieval_pipeline = retrieval_pipeline
        self.dataset = dataset
        self.batch_size = batch_size
        self.default_executor = executor_choice(executor)
        self._metered_llm: MeteredLLM | None = None

    @abstractmethod
    def method_options(self, top_k: int | None) -> Mapping[str, Any]:
        """The method's options as they will run (JSON-serialisable), for the run hash."""

    @abstractmethod
    def build_method(self, llm: LLM, retriever: Retriever | None, top_k: int | None,
                     dataset: str | None = None) -> Method:
        """The pure method, built from its components, for ``dataset`` (None: a free-text question)."""

    def _llm(self) -> MeteredLLM:
        if self._metered_llm is None:
            inner = load_llm(self.llm) if isinstance(self.llm, str) else as_llm(self.llm)
            self._metered_llm = inner if isinstance(inner, MeteredLLM) else MeteredLLM(inner)  # metered once
        return self._metered_llm

    def _llm_spec(self) -> Mapping[str, Any]:
        if isinstance(self.llm, str):
            return {"config": self.llm, **named_spec("llm", self.llm)}
        llm = self._llm()
        return {"model_id": llm.model_id, "context_length": llm.context_length}

    def _dataset(self, store: Store) -> str:
        fallback = self.retrieval_pipeline.dataset if self.retrieval_pipeline is not None else None
        return resolve_dataset(store, self.dataset or fallback)

    def _retriever(self, dataset: str | None) -> Retriever | None:
        return None if self.retrieval_pipeline is None else self.retrieval_pipeline.retriever(dataset)

    def run_spec(self, top_k: int | None = None) -> RunSpec:
        """The run's full configuration; its hash is the run id.

        Raises:
            ConfigError: ``top_k`` given to a method without a K (it would change nothing, and the
                run's id would not change either).
        """
        self._check_top_k(top_k)
        store = Store(self.session_factory)
        dataset = self._dataset(store)
        config: dict[str, Any] = {
            "method": dict(self.method_options(top_k)),
            "llm": dict(self._llm_spec()),
            "dataset_fingerprint": store.fingerprint(dataset),
        }
        if self.retrieval_pipeline is not None:
            config["retrieval"] = dict(self.retrieval_pipeline.spec(dataset))
        return RunSpec(name=self.name, method=self.method_name, dataset=dataset, config=config)

    def run(self, top_k: int | None = None, *, limit: int | None = None, progress: bool = True,
            trace_prompts: bool = False, on_start: Callable[[RunStart], None] | None = None,
            executor: str | ExecutorChoice | None = None, keep_failed: bool = False) -> dict[str, Any]:
        """Answer every question of the dataset not yet finished in this run and store the results
        (with ``trace_prompts``, each trace step also keeps its model calls' prompts; they do not
        change the answers, so they are not part of the run's identity).

        A run is identified by its configuration: when this configuration was first run under
        another name, the run resumes under that name, with a warning, and ``name`` says it.

        Args:
            on_start: called before the first question with what the run is about to do
                (its stored name, the questions left, how many are answered at once).
            executor: ``"threads"`` (this process) or ``"ray"`` (workers of a Ray cluster, each
                storing its answers), or an :class:`~hopkit.executors.ExecutorChoice` naming the cluster
                and the workers; None: the pipeline's own (its config's ``executor`` fields; threads by
                default). The answers and the run id do not depend on it.
            keep_failed: leave stored the failures a greedy rerun repeats (an empty answer, an unreadable reply,
                an unstorable trace: :data:`~hopkit.errors.DETERMINISTIC_FAILURES`) instead of asking those
                questions again; failures on a model server or the store are asked again all the same.

        Returns:
            ``run_id``, ``name`` (the run's stored name), ``total_queries``, ``already_done``,
            ``finished``, ``failed``, ``first_error`` (the first failed question's error, or
            None), ``failures`` (counts by error class), ``workers`` (questions answered at
            once), ``without_evidence`` (answered questions for which a method that filters
            its evidence kept no paragraph), ``evidence_advice`` (what to change then; None for
            a method without such a filter), ``own_share`` (the share of the time spent answering
            and storing that was hopkit's own, not the model's) and ``kept_failed`` (stored failures
            ``keep_failed`` left alone; ``already_done`` counts them).
        """
        store = Store(self.session_factory)
        spec = self.run_spec(top_k)
        for warning in self.run_warnings(top_k):
            logger.warning("%s", warning)
        choice = self.default_executor if executor is None else executor_choice(executor)
        answering = self.executor(choice, top_k, spec.dataset)
        queries = store.queries(spec.dataset, limit=limit)
        outcome = run_with(answering, queries, store, spec, progress=progress, trace_prompts=trace_prompts,
                           on_start=on_start, keep_failed=keep_failed)
        if outcome.name != self.name:
            logger.warning("this configuration was first run as %r, the name it keeps: a run is identified by its "
                           "configuration, so naming it %r resumed that run (run %s)", outcome.name, self.name,
                           outcome.run_id)
        return {"run_id": outcome.run_id, "name": outcome.name, "total_queries": outcome.total_queries,
                "already_done": outcome.already_done, "finished": outcome.finished, "failed": outcome.failed,
                "first_error": outcome.first_error, "failures": dict(outcome.failures), "workers": answering.workers,
                "without_evidence": outcome.without_evidence, "evidence_advice": outcome.evidence_advice,
                "answered_elsewhere": outcome.answered_elsewhere, "own_share": outcome.own_share,
                "kept_failed": outcome.kept_failed}

    def run_warnings(self, top_k: int | None = None) -> list[str]:
        """What a run with these options should be warned of before its first question."""
        return []

    def executor(self, choice: ExecutorChoice, top_k: int | None, dataset: str) -> Executor:
        """What answers this run's questions: threads of this process, or Ray workers that build the
        method from the run's plan (the model is then not loaded in this process)."""
        if choice.kind == "threads":
            run_plan = getattr(self, "run_plan", None)
            if run_plan is not None:  # built as Ray's workers build it, from this process's model and retrieval
                method = run_plan(top_k, choice).build(self.session_factory, llm=self._llm(),
                                                       retrieval=self.retrieval_pipeline, warm=False)
            else:  # a pipeline of its own with no plan: built by its own build_method
                method = self.build_method(self._llm(), self._retriever(dataset), top_k, dataset)
            return ThreadExecutor(method, self.workers())
        from hopkit.executors.ray_actors import RayExecutor

        method_spec = getattr(self, "method_spec", None)
        if method_spec is None:
            raise ConfigError(f"{type(self).__name__} cannot run on Ray: it has no run plan to send to workers")
        return RayExecutor(method_spec(top_k, choice), database_url(self.session_factory), address=choice.address,
                           workers=choice.workers, cpus_per_worker=choice.cpus_per_worker,
                           question_timeout=choice.question_timeout, forward_env=choice.forward_env)

    def workers(self) -> int:
        """Questions answered at once: ``batch_size`` when the LLM serves concurrent calls (a model
        server), else 1 (an in-process model answers one question at a time)."""
        return self.batch_size if supports_concurrency(self._llm()) else 1

    def _check_top_k(self, top_k: int | None) -> None:
        if self.top_k_option is None:
            refuse_top_k(top_k, self.method_title or self.method_name, self.no_top_k_reason)

    def _generate(self, question: str, top_k: int | None = None) -> GenerationResult:
        """Answer one free-text question (nothing is stored)."""
        self._check_top_k(top_k)
        dataset = None
        if self.retrieval_pipeline is not None:
            dataset = self._dataset(Store(self.session_factory))
        method = self.build_method(self._llm(), self._retriever(dataset), top_k, dataset)
        return method.generate(Query(id="adhoc", text=question))
