"""IRCoT facade: interleaved retrieval and chain of thought, as the documentation page shows it.

``top_k`` is the documented alias of ``k_per_step``: given to the constructor, the
YAML config or ``run(top_k=...)``, it is the K that retrieves.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Mapping

from sqlalchemy.orm import Session, sessionmaker

from hopkit.errors import ConfigError
from hopkit.llm.protocol import LLM
from hopkit.methods.iirc import IIRCConfig, RetrieverTitleMatcher
from hopkit.methods.ircot import IRCoT, IRCoTConfig
from hopkit.methods.protocol import Method
from hopkit.options import PositiveInt, shown
from hopkit.pipelines.base import GenerationPipeline
from hopkit.pipelines.generation.config import (
    DemonstrationSpec, GenerationPipelineConfig, demonstration_spec, load_demonstrations,
)
from hopkit.pipelines.retrieval.base import RetrievalPipeline
from hopkit.retrieval.protocol import Retriever

# The question prefixes of the authors' Flan-T5 prompt files (Appendix G).
FLAN_COT_PREFIX = "Answer the following question by reasoning step-by-step.\n"
FLAN_DIRECT_PREFIX = "Answer the following question.\n"


def ircot_config(options: Mapping[str, Any], source: str = "IRCoT") -> IRCoTConfig:
    """An :class:`IRCoTConfig` from options (``iirc`` may be a mapping of its fields).

    Raises:
        ConfigError: naming an unknown option, or from the config's own checks.
    """
    known = {f.name for f in fields(IRCoTConfig)}
    unknown = sorted(str(name) for name in set(options) - known)
    if unknown:
        raise ConfigError(f"{source}: unknown option(s) {unknown}; known: {sorted(known)}")
    values = dict(options)
    if isinstance(values.get("iirc"), Mapping):
        try:
            values["iirc"] = IIRCConfig(**values["iirc"])
        except (TypeError, ConfigError) as exc:
            raise ConfigError(f"{source}: option 'iirc': {exc}") from None
    elif "iirc" in values and not isinstance(values["iirc"], IIRCConfig):
        raise ConfigError(f"{source}: option 'iirc': expected a mapping of title_count, max_tokens and "
                          f"question_prefix, got {shown(values['iirc'])}")
    return IRCoTConfig(**values)


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
        k_per_step, max_steps, paragraph_budget, stop_sequence, reasoning_prompt_template,
            qa_prompt_template: as in :class:`IRCoTConfig`.
        top_k: alias of ``k_per_step``; when given it wins.
        demonstrations: the authors' demonstration set (reasoning: their CoT file; reader:
            the file of the reader's mode; same M). With ``family="flan_t5"`` empty
            question prefixes become the Flan-T5 files' prefixes.
        title_matching: IIRC's title step (Appendix B) for questions with a main passage;
            None = on when the dataset is ``iirc``.
        options: any other :class:`IRCoTConfig` field (``reader``, ``generation_max_tokens``...).
    """

    method_name = "ircot"

    def __init__(self, session_factory: sessionmaker[Session], name: str, llm: Any,
                 retrieval_pipeline: RetrievalPipeline, *, k_per_step: int = 4, max_steps: int = 8,
                 paragraph_budget: int = 15, stop_sequence: str = "answer is:",
                 reasoning_prompt_template: str | None = None, qa_prompt_template: str | None = None,
                 top_k: int | None = None, demonstrations: DemonstrationSpec | None = None,
                 title_matching: bool | None = None, dataset: str | None = None, batch_size: int = 10,
                 **options: Any) -> None:
        super().__init__(session_factory, name, llm, retrieval_pipeline, dataset, batch_size)
        self.config = ircot_config({
            "k_per_step": k_per_step if top_k is None else top_k, "max_steps": max_steps,
            "paragraph_budget": paragraph_budget, "stop_sequence": stop_sequence,
            "reasoning_prompt_template": reasoning_prompt_template, "qa_prompt_template": qa_prompt_template,
            **options,
        })
        self.demonstrations = demonstrations
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
        return {**asdict(self._config(top_k)), "demonstrations": demos, "title_matching": self.title_matching}

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
class IRCoTGenerationPipelineConfig(GenerationPipelineConfig):
    """YAML config of IRCoT (the documentation page's options; ``top_k`` is an alias of
    ``k_per_step``), plus ``demonstrations``, ``title_matching`` and ``options`` (any
    other :class:`IRCoTConfig` field)."""

    k_per_step: PositiveInt = 4
    max_steps: PositiveInt = 8
    paragraph_budget: PositiveInt = 15
    stop_sequence: str = "answer is:"
    reasoning_prompt_template: str | None = None
    qa_prompt_template: str | None = None
    top_k: PositiveInt | None = None
    demonstrations: Mapping[str, Any] | DemonstrationSpec | None = None
    title_matching: bool | None = None
    options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__post_init__()
        demonstration_spec(self.demonstrations)
        own = sorted(str(name) for name in set(self.options) & {f.name for f in fields(self)})
        if own:
            raise ConfigError(f"field 'options': {own} are fields of their own; set them outside 'options'")
        try:  # the method's own checks (templates, the options mapping...), when the file is read
            ircot_config({
                "k_per_step": self.k_per_step if self.top_k is None else self.top_k, "max_steps": self.max_steps,
                "paragraph_budget": self.paragraph_budget, "stop_sequence": self.stop_sequence,
                "reasoning_prompt_template": self.reasoning_prompt_template,
                "qa_prompt_template": self.qa_prompt_template, **self.options,
            }, source="field 'options'")
        except ConfigError as exc:
            in_options = any(f"option {name!r}" in str(exc) for name in self.options)
            if in_options and not str(exc).startswith("field 'options'"):
                raise ConfigError(f"field 'options': {exc}") from None
            raise

    def build(self, session_factory: sessionmaker[Session]) -> IRCoTGenerationPipeline:
        retrieval = self.retrieval_pipeline(session_factory)
        if retrieval is None:
            raise ConfigError(f"IRCoT config {self.name!r}: option 'retrieval_pipeline_name' is required")
        return IRCoTGenerationPipeline(
            session_factory, self.name, self.llm, retrieval, k_per_step=self.k_per_step, max_steps=self.max_steps,
            paragraph_budget=self.paragraph_budget, stop_sequence=self.stop_sequence,
            reasoning_prompt_template=self.reasoning_prompt_template, qa_prompt_template=self.qa_prompt_template,
            top_k=self.top_k, demonstrations=demonstration_spec(self.demonstrations),
            title_matching=self.title_matching, dataset=self.dataset, batch_size=self.batch_size, **dict(self.options),
        )
