"""Adaptive-RAG (Jeong et al., NAACL 2024), as an algorithm box::

    o <- classifier(q)              a query complexity label: A, B or C
    A: answer <- NoR(q)             no retrieval
    B: answer <- OneR(q)            one retrieval with the question, then the reader
    C: answer <- IRCoT(q)           interleaved retrieval and chain of thought

The classifier is one trained on silver labels from runs of the three strategies (``hopkit
train-router``, the paper's way), or, for users without training data, the run's model prompted to
choose. The strategies are hopkit's NoR, OneR and IRCoT with their declared settings for the run's
dataset (the same runs the routed one is compared with), so a routed question's steps and costs are
its strategy's, kept in the trace under that method's name.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from hopkit.errors import ConfigError, UnknownNameError
from hopkit.llm.protocol import LLM
from hopkit.methods.demonstrations import DemonstrationSpec
from hopkit.methods.adaptive_rag.classifiers import Classifier, FileClassifier, PromptedClassifier
from hopkit.methods.adaptive_rag.labels import LABELS, STRATEGIES
from hopkit.methods.adaptive_rag.steps import AdaptiveRAGSummary, AdaptiveRoute
from hopkit.methods.method_config import method_config
from hopkit.methods.protocol import Method, warm_up
from hopkit.methods.registry import ExperimentLookup, MethodParts, method_entry
from hopkit.options import ADDED_AFTER_FIRST_RUNS, check_fields, fixed_after_runs
from hopkit.records import GenerationResult, Query
from hopkit.traces import recorded_by
from hopkit.traces.payload import record
from hopkit.usage import components_of

logger = logging.getLogger(__name__)

#: The strategies' options at which the campaign's saved Adaptive-RAG cells ran, before issue 71 made the
#: IRCoT authors' behaviour their defaults (OneR's query without wh-words and its admitted hits, the line stop).
BEFORE_ISSUE_71: dict[str, dict[str, Any]] = {
    "nor": {"reader_stop": "paragraph"},
    "oner": {"query": "question", "admit_hits": "all", "reader_stop": "paragraph"},
    "ircot": {"reader_stop": "paragraph"},
}

#: Strategy options that are the pipeline's, not the method's.
_NOT_OPTIONS = ("method", "name", "dataset", "llm", "retrieval_pipeline_name", "retrieval_pipeline", "top_k",
                "batch_size")


@dataclass(frozen=True)
class AdaptiveRAGConfig:
    """Options of Adaptive-RAG.

    Attributes:
        classifier: ``prompted`` (the run's model chooses), or the path of a classifier file that
            ``hopkit train-router`` wrote.
        fallback: the label taken when the prompted model's reply holds none.
        strategies: ``experiments``: NoR, OneR and IRCoT with their declared settings for the run's
            dataset (their papers'; the shipped config's choice); ``defaults``: with their options'
            defaults (any dataset).
        classifier_sha256: the classifier file's SHA-256, read from the file when not given (so that a run routed
            by a retrained file is a new run); a config that gives one refuses a file that does not match it.
        demonstrations: with ``strategies: experiments``, the demonstrations the few-shot strategies take
            instead of their declared ones (``{dataset: musique}``); None: the run's dataset's, or on a
            dataset with none of its own HotpotQA's (:data:`hopkit.pipelines.experiments.DEFAULT_DEMONSTRATIONS`), said
            at the start of the run. In the run's identity only when set.
        strategy_options: options laid over a strategy's (declared or default) ones, by strategy
            (``{oner: {k: 10}}``). :data:`BEFORE_ISSUE_71` (``{nor: {reader_stop: paragraph}, oner: {query:
            question, admit_hits: all, reader_stop: paragraph}, ircot: {reader_stop: paragraph}}``) gives the
            strategies the behaviour the campaign's saved cells ran with (the question as OneR's query, every
            hit read, the reader stopping at a blank line; pinned); at that value it is left out of the run's
            identity.
    """

    classifier: str = "prompted"
    fallback: Literal["A", "B", "C"] = "C"
    strategies: Literal["experiments", "defaults"] = "defaults"
    classifier_sha256: str = field(default="", metadata=ADDED_AFTER_FIRST_RUNS)
    demonstrations: DemonstrationSpec | None = field(default=None, metadata=ADDED_AFTER_FIRST_RUNS)
    strategy_options: dict[str, dict[str, Any]] = field(default_factory=dict,
                                                        metadata=fixed_after_runs(BEFORE_ISSUE_71))

    def __post_init__(self) -> None:
        check_fields(self, "Adaptive-RAG option")
        unknown = sorted(set(self.strategy_options) - set(STRATEGIES.values()))
        if unknown:
            raise ConfigError(f"Adaptive-RAG option 'strategy_options': {', '.join(unknown)} is not a strategy; "
                              f"expected {', '.join(STRATEGIES.values())}")
        if self.demonstrations is not None and self.strategies != "experiments":
            raise ConfigError("Adaptive-RAG option 'demonstrations': the strategies take demonstrations with "
                              "strategies: experiments; set it, or leave demonstrations out")
        if self.classifier == "prompted" or not Path(self.classifier).is_file():
            return  # a missing file is refused, by name, when the router is built
        digest = hashlib.sha256(Path(self.classifier).read_bytes()).hexdigest()
        if self.classifier_sha256 and self.classifier_sha256 != digest:
            raise ConfigError(f"Adaptive-RAG option 'classifier_sha256': {self.classifier} has SHA-256 {digest}, "
                              f"not {self.classifier_sha256}: the file was retrained or replaced")
        object.__setattr__(self, "classifier_sha256", digest)


class AdaptiveRAG:
    """Adaptive-RAG: the classifier's label routes each question to NoR, OneR or IRCoT.

    Its trace: a ``scope`` step with the route (:class:`AdaptiveRoute`), then the strategy's own steps.
    """

    name = "adaptive-rag"

    def __init__(self, classifier: Classifier, strategies: dict[str, Method], description: str) -> None:
        self.classifier = classifier
        self.strategies = strategies
        self.description = description

    def warm_up(self) -> None:
        for strategy in self.strategies.values():
            warm_up(strategy)

    def generate(self, query: Query) -> GenerationResult:
        routing = self.classifier.classify(query.text)                                             # o
        strategy = STRATEGIES[routing.label]
        record(AdaptiveRoute(question=query.text, label=routing.label, strategy=strategy,
                             classifier=self.description, readable=routing.readable, reply=routing.reply),
               scores=routing.scores or ())
        with recorded_by(strategy), components_of(self.name):
            result = self.strategies[routing.label].generate(query)                                 # A | B | C
        summary = AdaptiveRAGSummary(route=routing.label, strategy=strategy, classifier=self.description)
        return GenerationResult(text=result.text, chunk_ids=result.chunk_ids,
                                metadata={**dict(result.metadata or {}), **summary.to_json()})


def build_adaptive_rag(llm: LLM, retriever: Any, config: AdaptiveRAGConfig, dataset: str | None,
                       paragraphs: Any, experiments: ExperimentLookup | None = None) -> AdaptiveRAG:
    """The router with its classifier and its three strategies built for ``dataset``.

    Args:
        experiments: the declared experiments, which ``strategies: experiments`` reads the strategies'
            settings from (:func:`hopkit.pipelines.experiments.load_experiment`, handed in by the pipeline).

    Raises:
        ConfigError: the classifier file cannot be used, a strategy cannot be built for the dataset, or
            ``strategies: experiments`` was not handed the declared experiments.
    """
    classifier: Classifier = (PromptedClassifier(llm, config.fallback) if config.classifier == "prompted"
                              else FileClassifier(config.classifier))
    strategies: dict[str, Method] = {}
    fallbacks: dict[str, str] = {}  # strategy -> what it takes for want of declared settings
    for label in LABELS:
        entry = method_entry(STRATEGIES[label])
        declared: dict[str, Any] = {}
        if config.strategies == "experiments":
            if dataset is None:
                raise ConfigError("Adaptive-RAG: strategies: experiments takes each strategy's settings for the "
                                  "run's dataset; give a dataset, or set strategies: defaults")
            if experiments is None:
                raise ConfigError("Adaptive-RAG: strategies: experiments takes each strategy's declared settings, "
                                  "and none were handed in: build it through a pipeline, or give MethodParts "
                                  "experiments=hopkit.pipelines.experiments.load_experiment")
            declared = _declared_options(experiments, entry.name, dataset, config.demonstrations, fallbacks)
        options = method_config(entry.options, {**declared, **config.strategy_options.get(entry.name, {})},
                                f"Adaptive-RAG's strategy {entry.name}")
        try:
            strategies[label] = entry.build(MethodParts(llm, retriever if entry.retrieves else None,
                                                        entry.as_run(options), dataset, paragraphs, experiments))
        except ConfigError as exc:
            raise ConfigError(f"Adaptive-RAG: its strategy {entry.name} cannot be built for {dataset!r} ({exc}); "
                              "set strategies: defaults to run the strategies with their defaults") from None
    if fallbacks:  # one line for the three strategies, as a config naming one experiment says it
        said = sorted(set(fallbacks.values()))
        logger.warning("adaptive-rag: its strategies %s: %s", ", ".join(fallbacks), "; ".join(said))
    return AdaptiveRAG(classifier, strategies, config.classifier)


def _declared_options(experiments: ExperimentLookup, name: str, dataset: str,
                      demonstrations: DemonstrationSpec | None, fallbacks: dict[str, str]) -> dict[str, Any]:
    """Strategy ``name``'s declared options for ``dataset``, with ``demonstrations`` (when given) over its
    declared ones; what it takes for want of declared settings is added to ``fallbacks``."""
    try:
        experiment = experiments(name, dataset)
    except UnknownNameError as exc:
        raise ConfigError(f"Adaptive-RAG: strategy {name}: {exc}") from None
    if experiment.skipped is not None:
        raise ConfigError(f"Adaptive-RAG: its strategy {name} is not run on {dataset!r} ({experiment.skipped}); "
                          "set strategies: defaults to run it with its defaults")
    options = {key: value for key, value in experiment.config.items() if key not in _NOT_OPTIONS}
    if demonstrations is not None and options.get("demonstrations") is not None:
        options["demonstrations"] = demonstrations
    elif experiment.fallback is not None:
        fallbacks[name] = experiment.fallback
    return options
