"""NoR facade: the question alone, no retrieval."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Mapping

from sqlalchemy.orm import Session, sessionmaker

from hopkit.llm.protocol import LLM
from hopkit.methods.no_retrieval import NoR, NoRConfig
from hopkit.methods.protocol import Method
from hopkit.methods.reader import ReaderConfig
from hopkit.pipelines.base import GenerationPipeline
from hopkit.pipelines.generation.config import (
    DemonstrationSpec, ReaderPipelineConfig, demonstration_spec, load_demonstrations, reader_config,
)
from hopkit.retrieval.protocol import Retriever


class NoRGenerationPipeline(GenerationPipeline):
    """NoR over every question of a stored dataset."""

    method_name = "nor"

    def __init__(self, session_factory: sessionmaker[Session], name: str, llm: Any, *,
                 reader: ReaderConfig = ReaderConfig(), demonstrations: DemonstrationSpec | None = None,
                 dataset: str | None = None, batch_size: int = 10) -> None:
        super().__init__(session_factory, name, llm, None, dataset, batch_size)
        self.config = NoRConfig(reader=reader)
        self.demonstrations = demonstrations

    def method_options(self, top_k: int | None) -> Mapping[str, Any]:
        demos = None if self.demonstrations is None else asdict(self.demonstrations)
        return {**asdict(self.config), "demonstrations": demos}

    def build_method(self, llm: LLM, retriever: Retriever | None, top_k: int | None) -> Method:
        demos = load_demonstrations(self.demonstrations, self.config.reader.mode, with_context=False)
        return NoR(llm, self.config, demos)


@dataclass(frozen=True)
class NoRPipelineConfig(ReaderPipelineConfig):
    """YAML config of NoR: ``reader`` ("direct"/"cot" or a mapping) and optional ``demonstrations``."""

    retrieval_pipeline_name: str | None = None

    def build(self, session_factory: sessionmaker[Session]) -> NoRGenerationPipeline:
        return NoRGenerationPipeline(
            session_factory, self.name, self.llm, reader=reader_config(self.reader),
            demonstrations=demonstration_spec(self.demonstrations), dataset=self.dataset, batch_size=self.batch_size,
        )
