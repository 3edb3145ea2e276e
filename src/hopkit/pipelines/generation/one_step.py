"""OneR facade: one retrieval with the question, then the reader."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any, Mapping

from sqlalchemy.orm import Session, sessionmaker

from hopkit.errors import ConfigError
from hopkit.llm.protocol import LLM
from hopkit.methods.one_step import OneR, OneRConfig
from hopkit.methods.protocol import Method
from hopkit.methods.reader import ReaderConfig
from hopkit.options import PositiveInt
from hopkit.pipelines.base import GenerationPipeline
from hopkit.pipelines.generation.config import (
    DemonstrationSpec, ReaderPipelineConfig, demonstration_spec, load_demonstrations, reader_config,
)
from hopkit.pipelines.retrieval.base import RetrievalPipeline
from hopkit.retrieval.protocol import Retriever


class OneRGenerationPipeline(GenerationPipeline):
    """OneR over every question of a stored dataset; ``top_k`` given to ``run`` overrides ``k``."""

    method_name = "oner"

    def __init__(self, session_factory: sessionmaker[Session], name: str, llm: Any,
                 retrieval_pipeline: RetrievalPipeline, *, k: int = 5, reader: ReaderConfig = ReaderConfig(),
                 demonstrations: DemonstrationSpec | None = None, dataset: str | None = None,
                 batch_size: int = 10) -> None:
        super().__init__(session_factory, name, llm, retrieval_pipeline, dataset, batch_size)
        self.config = OneRConfig(k=k, reader=reader)
        self.demonstrations = demonstrations

    def _config(self, top_k: int | None) -> OneRConfig:
        return self.config if top_k is None else replace(self.config, k=top_k)

    def method_options(self, top_k: int | None) -> Mapping[str, Any]:
        demos = None if self.demonstrations is None else asdict(self.demonstrations)
        return {**asdict(self._config(top_k)), "demonstrations": demos}

    def build_method(self, llm: LLM, retriever: Retriever | None, top_k: int | None) -> Method:
        if retriever is None:
            raise ConfigError("OneR needs a retrieval pipeline")
        demos = load_demonstrations(self.demonstrations, self.config.reader.mode, with_context=True)
        return OneR(llm, retriever, self._config(top_k), demos)


@dataclass(frozen=True)
class OneRPipelineConfig(ReaderPipelineConfig):
    """YAML config of OneR: ``k``, ``reader`` and optional ``demonstrations``."""

    k: PositiveInt = 5

    def build(self, session_factory: sessionmaker[Session]) -> OneRGenerationPipeline:
        retrieval = self.retrieval_pipeline(session_factory)
        if retrieval is None:
            raise ConfigError(f"OneR config {self.name!r}: option 'retrieval_pipeline_name' is required")
        return OneRGenerationPipeline(
            session_factory, self.name, self.llm, retrieval, k=self.k, reader=reader_config(self.reader),
            demonstrations=demonstration_spec(self.demonstrations), dataset=self.dataset, batch_size=self.batch_size,
        )
