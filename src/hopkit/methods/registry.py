"""Every method hopkit can run, one entry each.

A method is a package (``hopkit/methods/ircot/``) that holds what it owns: its loop, its
options class, its step payloads, its prompts and its report template, and that declares
one :class:`MethodEntry` as ``METHOD``. Listing the package here (:data:`BUILT_IN`) is the
only other line a built-in method adds; a package outside hopkit declares its entry under
the ``hopkit.methods`` entry-point group instead::

    [project.entry-points."hopkit.methods"]
    toy = "mypackage.toy:METHOD"

From the entries come the facade and YAML config classes
(:func:`hopkit.pipelines.generation.registered.method_pipeline`), the command line's
method names (``hopkit run ircot``), the report's renderer for each method, the contract
test's parametrisation and the check that every option is documented.
"""

from __future__ import annotations

import dataclasses
import importlib
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Callable, Mapping, Protocol, Sequence

from hopkit.errors import ConfigError, UnknownNameError
from hopkit.llm.protocol import LLM
from hopkit.methods.paper_claims import PaperClaim
from hopkit.options import refuse_top_k
from hopkit.methods.protocol import Method
from hopkit.records import Paragraph
from hopkit.retrieval.protocol import Retriever
from hopkit.traces import Step
from hopkit.traces.payload import Payload, payload_of
from hopkit.traces.summary import Summary
from hopkit.usage import ModelCallParts

#: The packages of hopkit's own methods, in the order tables list them.
BUILT_IN = (
    "hopkit.methods.nor",
    "hopkit.methods.oner",
    "hopkit.methods.ircot",
    "hopkit.methods.migres",
    "hopkit.methods.searchain",
    "hopkit.methods.iter_retgen",
    "hopkit.methods.self_ask",
    "hopkit.methods.react",
    "hopkit.methods.react_shao",
    "hopkit.methods.flare",
    "hopkit.methods.alce",
    "hopkit.methods.search_o1",
    "hopkit.methods.search_agent",
    "hopkit.methods.adaptive_rag",
    "hopkit.methods.dragin",
)

#: The entry-point group through which other packages add methods.
ENTRY_POINT_GROUP = "hopkit.methods"


def _no_paragraphs() -> Sequence[Paragraph]:
    return ()


class DeclaredExperiment(Protocol):
    """A method's declared settings for one dataset, as :func:`hopkit.pipelines.experiments.load_experiment` gives them."""

    @property
    def config(self) -> Mapping[str, Any]: ...

    @property
    def skipped(self) -> str | None: ...

    @property
    def fallback(self) -> str | None: ...


#: Looks up a declared experiment by name and dataset (:func:`hopkit.pipelines.experiments.load_experiment`).
ExperimentLookup = Callable[[str, str], DeclaredExperiment]


@dataclass(frozen=True)
class MethodParts:
    """What a method is built from.

    Attributes:
        llm: the run's model.
        retriever: where paragraphs come from (None for a method that does not retrieve).
        options: the method's options, as they will run (an instance of its options class).
        dataset: the stored dataset the method answers (None for a free-text question with no
            retrieval pipeline).
        paragraphs: the dataset's whole corpus, read from the store when called (IRCoT's title
            index for IIRC is built on it).
        experiments: the declared experiments, for a method built from other methods' declared
            settings (Adaptive-RAG's ``strategies: experiments``); the pipelines hand in
            :func:`hopkit.pipelines.experiments.load_experiment`, which reads the registry, so the methods
            never import it. None: no declared settings at hand.
    """

    llm: LLM
    retriever: Retriever | None
    options: Any
    dataset: str | None = None
    paragraphs: Callable[[], Sequence[Paragraph]] = _no_paragraphs
    experiments: ExperimentLookup | None = None

    def needed_retriever(self, method: str) -> Retriever:
        """The retriever, for a method that cannot run without one.

        Raises:
            ConfigError: there is none (the message names ``method``).
        """
        if self.retriever is None:
            raise ConfigError(f"{method} needs a retrieval pipeline")
        return self.retriever


@dataclass(frozen=True)
class MethodEntry:
    """One method, as the rest of hopkit knows it.

    Attributes:
        name: the short name runs store and the command line takes (``ircot``), lower case.
        title: the name tables, messages and class names use (``IRCoT``).
        options: the options dataclass: typed, ranged, the paper's defaults, each field named
            in its docstring.
        build: builds the method from its parts.
        retrieves: whether the method needs a retrieval pipeline.
        top_k: the option that ``top_k`` (``run(top_k=)``, ``--top-k``) sets, or None for a
            method with no single number of paragraphs per retrieval.
        no_top_k_reason: why a method without ``top_k`` has none (said when one is given).
        prepare: the options as they will run, from the options as given (None: unchanged).
        template: the Jinja file that draws the method's trace steps in the HTML report
            (None: the report's generic drawing).
        summary: one line saying what the method does (docstrings, messages).
        warnings: what a run with these options (as they will run) should be warned of before
            its first question (a threshold never calibrated for its judge...); None: nothing.
        payloads: the typed payloads of the steps its trace records
            (:class:`~hopkit.traces.payload.Payload`), in the order :meth:`payload` tries them.
        summary_type: the per-question summary its results store beside the trace
            (:class:`~hopkit.traces.summary.Summary`; None: none declared).
        claims: what its paper reports against its baselines (``hopkit claims`` checks them).
        needs: the model capabilities it cannot run without (``"attention"``...), for tools that choose
            a model per method (the benchmark campaign); the method itself refuses a model without them.
        parts: the parts of the method that call the model, each a column of its own in the cost tables
            (:class:`~hopkit.usage.ModelCallParts`, labels ``<name>:<part>``); the method opens them by name.
    """

    name: str
    title: str
    options: type
    build: Callable[[MethodParts], Method]
    retrieves: bool
    top_k: str | None = None
    no_top_k_reason: str = "it has no number of paragraphs per retrieval"
    prepare: Callable[[Any], Any] | None = None
    template: Path | None = None
    summary: str = ""
    warnings: Callable[[Any], Sequence[str]] | None = None
    payloads: tuple[type[Payload], ...] = ()
    summary_type: type[Summary] | None = None
    claims: tuple[PaperClaim, ...] = ()
    needs: tuple[str, ...] = ()
    parts: ModelCallParts | None = None

    def __post_init__(self) -> None:
        if not self.name or self.name != self.name.lower() or not self.name.replace("-", "").isalnum():
            raise ConfigError(f"method name {self.name!r}: expected lower-case letters, digits and '-'")
        if not dataclasses.is_dataclass(self.options):
            raise ConfigError(f"method {self.name!r}: options must be a dataclass, got {self.options!r}")
        names = {f.name for f in dataclasses.fields(self.options)}
        if self.top_k is not None and self.top_k not in names:
            raise ConfigError(f"method {self.name!r}: top_k names {self.top_k!r}, not an option of "
                              f"{self.options.__name__}")
        if self.parts is not None and self.parts.method != self.name:
            raise ConfigError(f"method {self.name!r}: its model-call parts are labelled {self.parts.method!r}; "
                              f"label them {self.name!r}")

    def payload(self, step: Step) -> Payload | None:
        """The typed payload of one of the method's stored steps (None for a kind it does not declare).

        Raises:
            TraceError: the step does not read as its payload (the message names the field).
        """
        recorder = step.extra.get("method") if isinstance(step.extra, Mapping) else None
        if isinstance(recorder, str) and recorder != self.name and recorder in entries():
            return entries()[recorder].payload(step)  # a step of a method this one ran as a part
        return payload_of(step, self.payloads)

    def with_top_k(self, options: Any, top_k: int | None) -> Any:
        """``options`` with ``top_k`` set as the option it names (unchanged when None).

        Raises:
            ConfigError: ``top_k`` given to a method without a K.
        """
        if self.top_k is None:
            refuse_top_k(top_k, self.title, self.no_top_k_reason)
            return options
        return options if top_k is None else dataclasses.replace(options, **{self.top_k: top_k})

    def as_run(self, options: Any, top_k: int | None = None) -> Any:
        """``options`` with ``top_k`` applied (when given) and prepared as they will run."""
        options = self.with_top_k(options, top_k)
        return options if self.prepare is None else self.prepare(options)


_ENTRIES: dict[str, MethodEntry] = {}


def _load(target: str, where: str) -> MethodEntry:
    module_name, _, attribute = target.partition(":")
    entry = getattr(importlib.import_module(module_name), attribute or "METHOD", None)
    if not isinstance(entry, MethodEntry):
        raise ConfigError(f"{where}: {target!r} is not a hopkit MethodEntry")
    return entry


def entries() -> dict[str, MethodEntry]:
    """Every method: hopkit's own first, then those of installed packages' entry points."""
    if not _ENTRIES:
        found: dict[str, MethodEntry] = {}
        for package in BUILT_IN:
            entry = _load(package, "hopkit.methods.registry.BUILT_IN")
            found[entry.name] = entry
        for point in entry_points(group=ENTRY_POINT_GROUP):
            entry = _load(point.value, f"entry point {point.name!r} of group {ENTRY_POINT_GROUP!r}")
            if entry.name in found and found[entry.name] is not entry:
                raise ConfigError(f"entry point {point.name!r}: a method named {entry.name!r} exists already")
            found[entry.name] = entry
        _ENTRIES.update(found)
    return dict(_ENTRIES)


def method_entry(name: str) -> MethodEntry:
    """The method called ``name`` (any case).

    Raises:
        UnknownNameError: no method has that name (the message lists them).
    """
    known = entries()
    entry = known.get(name.lower())
    if entry is None:
        raise UnknownNameError("method", name, list(known))
    return entry


def method_names() -> list[str]:
    """The names of every method, hopkit's own first."""
    return list(entries())


def declares_label(method: str, label: str) -> bool:
    """Whether the usage label ``label``, in a run of ``method``, is one its entry accounts for: one of its
    model-call parts (:attr:`MethodEntry.parts`), a judge's (``judge:...``), the retriever's (``retrieval``),
    or one of these of another registered method it runs as a part of it, under its own name as the owner
    (Adaptive-RAG's strategies: ``adaptive-rag:ircot:read``)."""
    if label == "retrieval" or label.startswith("judge:"):
        return True
    entry = entries().get(method)
    if entry is not None and entry.parts is not None and label in entry.parts.labels:
        return True
    owned = label.removeprefix(f"{method}:")
    return owned != label and any(declares_label(other, owned) for other in entries())
