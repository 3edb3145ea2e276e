"""IRCoT facade: interleaved retrieval and chain of thought, as the documentation page shows it.

``top_k`` is the documented alias of ``k_per_step``: given to the constructor, the
YAML config or ``run(top_k=...)``, it is the K that retrieves.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any, Mapping

from sqlalchemy.orm import Session, sessionmaker

from hopkit.errors import ConfigError
from hopkit.llm.protocol import LLM
from hopkit.methods.iirc import RetrieverTitleMatcher
from hopkit.methods.ircot import IRCoT, IRCoTConfig
from hopkit.methods.protocol import Method
from hopkit.options import PositiveInt, check_arguments, run_options
from hopkit.pipelines.base import GenerationPipeline
from hopkit.pipelines.generation.config import (
    DemonstrationSpec, GenerationPipelineConfig, demonstration_spec, load_demonstrations,
)
from hopkit.pipelines.generation.declared import method_config, yaml_config_class
from hopkit.pipelines.retrieval.base import RetrievalPipeline
from hopkit.retrieval.protocol import Retriever

# The question prefixes of the authors' Flan-T5 prompt files (Appendix G).
FLAN_COT_PREFIX = "Answer the following question by reasoning step-by-step.\n"
FLAN_DIRECT_PREFIX = "Answer the following question.\n"


class _StoreTitleMatcher:
    """BM25 over the titles of a stored corpus (Appendix B), built on first use."""

    def __init__(self, pipeline: GenerationPipeline) -> None:
        self.pipeline = pipeline
        self._inner: RetrieverTitleMatcher | None = None

    def match(self, title: str) -> str | None:
        if self._inner is None:
            from hopkit.retrieval.bm25 import BM25Retriever
            from hopkit.store.store import Store

            store = Store(self.pipeline.session_factory)
            corpus = RetrieverTitleMatcher.title_corpus(store.paragraphs(self.pipeline._dataset(store)))
            self._inner = RetrieverTitleMatcher(BM25Retriever.build(corpus))
        return self._inner.match(title)


class IRCoTGenerationPipeline(GenerationPipeline):
    """IRCoT over every question of a stored dataset; ``top_k`` given to ``run`` overrides ``k_per_step``.

    Args beyond the base class's:
        top_k: alias of ``k_per_step``; when given it wins.
        demonstrations: the authors' demonstration set (reasoning: their CoT file; reader:
            the file of the reader's mode; same M). With ``family="flan_t5"`` empty
            question prefixes become the Flan-T5 files' prefixes.
        title_matching: IIRC's title step (Appendix B) for questions with a main passage;
            None = on when the dataset is ``iirc``.
        options: the method's options, the fields of :class:`IRCoTConfig` (``k_per_step``,
            ``max_steps``, ``paragraph_budget``, ``stop_sequence``, the prompt templates,
            ``reader``...); ``iirc`` may be a mapping of its fields.
    """

    method_name = "ircot"
    top_k_option = "k_per_step"

    def __init__(self, session_factory: sessionmaker[Session], name: str, llm: Any,
                 retrieval_pipeline: RetrievalPipeline, *, top_k: PositiveInt | None = None,
                 demonstrations: Mapping[str, Any] | DemonstrationSpec | None = None,
                 title_matching: bool | None = None, dataset: str | None = None, batch_size: int = 10,
                 **options: Any) -> None:
        super().__init__(session_factory, name, llm, retrieval_pipeline, dataset, batch_size)
        check_arguments(IRCoTGenerationPipeline.__init__, "IRCoT option", top_k=top_k, title_matching=title_matching)
        if top_k is not None:
            options = {**options, "k_per_step": top_k}
        self.config = method_config(IRCoTConfig, options, "IRCoT")
        self.demonstrations = demonstration_spec(demonstrations)
        self.title_matching = title_matching

    def _config(self, top_k: int | None) -> IRCoTConfig:
        config = self.config if top_k is None else replace(self.config, k_per_step=top_k)
        if self.demonstrations is None or self.demonstrations.family != "flan_t5":
            return config
        reader_prefix = FLAN_DIRECT_PREFIX if config.reader == "direct" else FLAN_COT_PREFIX
        return replace(config, question_prefix=config.question_prefix or FLAN_COT_PREFIX,
                       reader_question_prefix=config.reader_question_prefix or reader_prefix,
                       iirc=replace(config.iirc, question_prefix=config.iirc.question_prefix or FLAN_DIRECT_PREFIX))

    def method_options(self, top_k: int | None) -> Mapping[str, Any]:
        demos = None if self.demonstrations is None else asdict(self.demonstrations)
        return {**run_options(self._config(top_k)), "demonstrations": demos, "title_matching": self.title_matching}

    def build_method(self, llm: LLM, retriever: Retriever | None, top_k: int | None) -> Method:
        if retriever is None:
            raise ConfigError("IRCoT needs a retrieval pipeline")
        config = self._config(top_k)
        reasoning = load_demonstrations(self.demonstrations, "cot", with_context=True)
        reader = [] if config.reader == "none" else load_demonstrations(self.demonstrations, config.reader,
                                                                         with_context=True)
        matcher, title_demos = self._title_step()
        return IRCoT(llm, retriever, config, reasoning, reader, title_matcher=matcher,
                     title_demonstrations=title_demos)

    def _title_step(self) -> tuple[_StoreTitleMatcher | None, list[str]]:
        if self.title_matching is False:
            return None, []
        if self.title_matching is None:
            from hopkit.store.store import Store

            if self._dataset(Store(self.session_factory)) != "iirc":
                return None, []
        if self.demonstrations is None:
            return _StoreTitleMatcher(self), []
        from hopkit.prompts.ircot_files import load_title_demonstrations

        return _StoreTitleMatcher(self), load_title_demonstrations(self.demonstrations.family)


@dataclass(frozen=True)
class IRCoTPipelineFields(GenerationPipelineConfig):
    """The IRCoT YAML config's own fields: ``top_k`` (the documented alias of ``k_per_step``),
    the authors' ``demonstrations`` and IIRC's ``title_matching``."""

    top_k: PositiveInt | None = None
    demonstrations: Mapping[str, Any] | DemonstrationSpec | None = None
    title_matching: bool | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        demonstration_spec(self.demonstrations)


IRCoTGenerationPipelineConfig = yaml_config_class(
    "IRCoTGenerationPipelineConfig", IRCoTPipelineFields, IRCoTConfig, IRCoTGenerationPipeline,
    module=__name__, method="IRCoT", needs_retrieval=True)
