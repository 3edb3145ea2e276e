"""OneR facade: one retrieval with the question, then the reader."""

from __future__ import annotations

from dataclasses import asdict, replace
from typing import Any, Mapping

from sqlalchemy.orm import Session, sessionmaker

from hopkit.errors import ConfigError
from hopkit.llm.protocol import LLM
from hopkit.methods.one_step import OneR, OneRConfig
from hopkit.methods.protocol import Method
from hopkit.options import run_options
from hopkit.pipelines.base import GenerationPipeline
from hopkit.pipelines.generation.config import (
    DemonstrationSpec, ReaderPipelineFields, demonstration_spec, load_demonstrations,
)
from hopkit.pipelines.generation.declared import method_config, renamed_classes, yaml_config_class
from hopkit.pipelines.retrieval.base import RetrievalPipeline
from hopkit.retrieval.protocol import Retriever


class OneRGenerationPipeline(GenerationPipeline):
    """OneR over every question of a stored dataset; ``top_k`` given to ``run`` overrides ``k``.

    Args beyond the base class's:
        demonstrations: the authors' demonstration set for the reader (with paragraphs).
        options: the fields of :class:`OneRConfig`: ``k`` and ``reader`` ("direct", "cot",
            a :class:`ReaderConfig` or a mapping of its fields).
    """

    method_name = "oner"
    top_k_option = "k"

    def __init__(self, session_factory: sessionmaker[Session], name: str, llm: Any,
                 retrieval_pipeline: RetrievalPipeline, *,
                 demonstrations: Mapping[str, Any] | DemonstrationSpec | None = None, dataset: str | None = None,
                 batch_size: int = 10, **options: Any) -> None:
        super().__init__(session_factory, name, llm, retrieval_pipeline, dataset, batch_size)
        self.config = method_config(OneRConfig, options, "OneR")
        self.demonstrations = demonstration_spec(demonstrations)

    def _config(self, top_k: int | None) -> OneRConfig:
        return self.config if top_k is None else replace(self.config, k=top_k)

    def method_options(self, top_k: int | None) -> Mapping[str, Any]:
        demos = None if self.demonstrations is None else asdict(self.demonstrations)
        return {**run_options(self._config(top_k)), "demonstrations": demos}

    def build_method(self, llm: LLM, retriever: Retriever | None, top_k: int | None) -> Method:
        if retriever is None:
            raise ConfigError("OneR needs a retrieval pipeline")
        demos = load_demonstrations(self.demonstrations, self.config.reader.mode, with_context=True)
        return OneR(llm, retriever, self._config(top_k), demos)


OneRGenerationPipelineConfig = yaml_config_class(
    "OneRGenerationPipelineConfig", ReaderPipelineFields, OneRConfig, OneRGenerationPipeline,
    module=__name__, method="OneR", needs_retrieval=True)

__getattr__ = renamed_classes(__name__, {"OneRPipelineConfig": "OneRGenerationPipelineConfig"})
