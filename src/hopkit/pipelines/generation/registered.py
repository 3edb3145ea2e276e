"""The facade and the YAML config class of every registered method, derived from its entry.

``method_pipeline("ircot")`` is the class the IRCoT documentation page calls
``IRCoTGenerationPipeline``; ``method_pipeline_config("ircot")`` its YAML config
(``IRCoTGenerationPipelineConfig``). Both are made once per method from its
:class:`~hopkit.methods.registry.MethodEntry` and served as attributes of this module, so
``_target_`` and pickle find them by name; hopkit's own methods are also re-exported from
``hopkit.pipelines.generation.<module>``, where earlier releases defined them.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import re
from typing import Any, ClassVar, Mapping, Sequence

from sqlalchemy.orm import Session, sessionmaker

from hopkit.errors import ConfigError
from hopkit.executors.choice import ExecutorChoice, executor_choice
from hopkit.pipelines.experiments import load_experiment
from hopkit.llm.protocol import LLM
from hopkit.methods.method_config import method_config
from hopkit.methods.protocol import Method
from hopkit.methods.registry import MethodEntry, MethodParts, method_entry, method_names
from hopkit.options import PositiveInt, check_arguments, every_option, run_options
from hopkit.pipelines.base import GenerationPipeline
from hopkit.pipelines.generation.config import GenerationPipelineConfig
from hopkit.pipelines.generation.declared import yaml_config_class
from hopkit.pipelines.plan import RetrievalSpec, RunPlan
from hopkit.pipelines.retrieval.base import RetrievalPipeline
from hopkit.records import Paragraph
from hopkit.retrieval.protocol import Retriever


class MethodPipeline(GenerationPipeline):
    """A registered method over every question of a stored dataset (one subclass per method).

    Args beyond :class:`GenerationPipeline`'s:
        top_k: the method's K (the option its entry names, e.g. IRCoT's ``k_per_step``);
            when given it wins. A method without one refuses it.
        options: the method's options, the fields of its options class.
    """

    method: ClassVar[MethodEntry]

    def __init__(self, session_factory: sessionmaker[Session], name: str, llm: Any,
                 retrieval_pipeline: RetrievalPipeline | None = None, *, top_k: PositiveInt | None = None,
                 dataset: str | None = None, batch_size: int = 10, executor: str | ExecutorChoice | None = None,
                 **options: Any) -> None:
        entry = self.method
        if retrieval_pipeline is not None and not entry.retrieves:
            raise ConfigError(f"{entry.title} retrieves nothing: leave out the retrieval pipeline")
        super().__init__(session_factory, name, llm, retrieval_pipeline, dataset, batch_size, executor=executor)
        check_arguments(MethodPipeline.__init__, f"{entry.title} option", top_k=top_k)
        self._check_top_k(top_k)
        if top_k is not None:
            options = {**options, str(entry.top_k): top_k}
        self.config = method_config(entry.options, options, entry.title)

    def options(self, top_k: int | None = None) -> Any:
        """The method's options as they will run (``top_k`` applied, prepared by the entry)."""
        return self.method.as_run(self.config, top_k)

    def method_spec(self, top_k: int | None = None, executor: str | ExecutorChoice | None = None) -> RunPlan:
        """This run by value for another process (a Ray worker): :meth:`run_plan`, which pickles.

        Raises:
            ConfigError: ``top_k`` given to a method without a K, or the pipeline was given an LLM object,
                not a config name (an object cannot be sent to another process).
        """
        if not isinstance(self.llm, str):
            raise ConfigError(f"{self.method.title}: a method spec needs the LLM by config name (or hf:// "
                              f"name), not a {type(self.llm).__name__} object, so that another process can "
                              "load the same model")
        return self.run_plan(top_k, executor)

    def run_plan(self, top_k: int | None = None, executor: str | ExecutorChoice | None = None) -> RunPlan:
        """This run by value (:class:`RunPlan`): every option, ``top_k`` folded in as the option it sets,
        the retrieval as data, the LLM as it was given (a loaded model too, which does not pickle) and
        the executor (None: this pipeline's own).

        Raises:
            ConfigError: ``top_k`` given to a method without a K.
        """
        config = self.method.with_top_k(self.config, top_k)
        retrieval = None if self.retrieval_pipeline is None else RetrievalSpec.of(self.retrieval_pipeline)
        choice = self.default_executor if executor is None else executor_choice(executor)
        return RunPlan(method_pipeline(self.method.name), self.name, every_option(config), self.llm, retrieval,
                       self.dataset, self.batch_size, choice)

    def run_warnings(self, top_k: int | None = None) -> list[str]:
        warnings = self.method.warnings
        return [] if warnings is None else list(warnings(self.options(top_k)))

    def method_options(self, top_k: int | None) -> Mapping[str, Any]:
        return run_options(self.options(top_k))

    def build_method(self, llm: LLM, retriever: Retriever | None, top_k: int | None,
                     dataset: str | None = None) -> Method:
        parts = MethodParts(llm, retriever, self.options(top_k), dataset,
                            paragraphs=functools.partial(self._paragraphs, dataset), experiments=load_experiment)
        return self.method.build(parts)

    def _paragraphs(self, dataset: str | None) -> Sequence[Paragraph]:
        from hopkit.store.store import Store

        store = Store(self.session_factory)
        return store.paragraphs(dataset or self._dataset(store))


def _class_name(entry: MethodEntry) -> str:
    return re.sub(r"\W", "", entry.title) + "GenerationPipeline"


def _own_init(entry: MethodEntry) -> Any:
    """A constructor of its own for one facade, so that its signature can name the method's options."""
    @functools.wraps(MethodPipeline.__init__)
    def __init__(self: MethodPipeline, *args: Any, **kwargs: Any) -> None:
        MethodPipeline.__init__(self, *args, **kwargs)

    signature = inspect.signature(MethodPipeline.__init__)
    hidden = {"top_k"} if entry.top_k is None else set()
    parameters = [p for p in signature.parameters.values() if p.name not in hidden]
    if entry.retrieves:
        parameters = [p.replace(default=inspect.Parameter.empty) if p.name == "retrieval_pipeline" else p
                      for p in parameters]
    else:
        parameters = [p for p in parameters if p.name != "retrieval_pipeline"]
    __init__.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    return __init__


def _pipeline_fields(entry: MethodEntry, name: str) -> type:
    """The YAML config's own fields: ``top_k`` for a method with a K; no retrieval by default without one."""
    fields: list[tuple[str, Any, Any]] = []
    if entry.top_k is not None:
        fields.append(("top_k", PositiveInt | None, dataclasses.field(default=None)))
    if not entry.retrieves:
        fields.append(("retrieval_pipeline_name", str | None, dataclasses.field(default=None)))
    return dataclasses.make_dataclass(f"{name}Fields", fields, bases=(GenerationPipelineConfig,), frozen=True,
                                      namespace={"__module__": __name__})


_CLASSES: dict[str, tuple[type[MethodPipeline], type[GenerationPipelineConfig]]] = {}


def _classes(name: str) -> tuple[type[MethodPipeline], type[GenerationPipelineConfig]]:
    entry = method_entry(name)
    if entry.name not in _CLASSES:
        class_name = _class_name(entry)
        doc = (f"{entry.title} over every question of a stored dataset: {entry.summary}.\n\n"
               f"The method's options are the fields of :class:`{entry.options.__module__}."
               f"{entry.options.__qualname__}`.")
        facade = type(class_name, (MethodPipeline,), {
            "__init__": _own_init(entry), "__module__": __name__, "__qualname__": class_name, "__doc__": doc,
            "method": entry, "method_name": entry.name, "method_title": entry.title, "top_k_option": entry.top_k,
            "no_top_k_reason": entry.no_top_k_reason})
        config = yaml_config_class(f"{class_name}Config", _pipeline_fields(entry, class_name), entry.options,
                                   facade, module=__name__, method=entry.title, needs_retrieval=entry.retrieves)
        _CLASSES[entry.name] = (facade, config)
    return _CLASSES[entry.name]


def method_pipeline(name: str) -> type[MethodPipeline]:
    """The facade of the method called ``name`` (``IRCoTGenerationPipeline`` for ``ircot``)."""
    return _classes(name)[0]


def method_pipeline_config(name: str) -> type[GenerationPipelineConfig]:
    """The YAML config class of the method called ``name`` (``IRCoTGenerationPipelineConfig``)."""
    return _classes(name)[1]


def config_target(name: str) -> str:
    """The ``_target_`` of the method called ``name``'s YAML config."""
    config = method_pipeline_config(name)
    return f"{config.__module__}.{config.__qualname__}"


def with_method_target(spec: Mapping[str, Any], source: str) -> dict[str, Any]:
    """A pipeline config that names its method (``method: ircot``), with that method's ``_target_``.

    Raises:
        ConfigError: naming ``source``: no method has that name (the message lists them).
    """
    name = spec["method"]
    known = method_names()
    if not isinstance(name, str) or name.lower() not in known:
        raise ConfigError(f"{source}: field 'method': no method named {name!r}; the methods are: "
                          f"{', '.join(known)}")
    return {**{k: v for k, v in spec.items() if k != "method"}, "_target_": config_target(name)}


def __getattr__(attribute: str) -> Any:
    for name in method_names():
        for made in _classes(name):
            if made.__name__ == attribute:
                return made
    raise AttributeError(f"module {__name__!r} has no attribute {attribute!r}")
