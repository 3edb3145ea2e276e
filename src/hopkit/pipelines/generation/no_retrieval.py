"""NoR facade: the question alone, no retrieval."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Mapping

from sqlalchemy.orm import Session, sessionmaker

from hopkit.llm.protocol import LLM
from hopkit.methods.no_retrieval import NoR, NoRConfig
from hopkit.methods.protocol import Method
from hopkit.options import run_options
from hopkit.pipelines.base import GenerationPipeline
from hopkit.pipelines.generation.config import (
    DemonstrationSpec, ReaderPipelineFields, demonstration_spec, load_demonstrations,
)
from hopkit.pipelines.generation.declared import method_config, renamed_classes, yaml_config_class
from hopkit.retrieval.protocol import Retriever


class NoRGenerationPipeline(GenerationPipeline):
    """NoR over every question of a stored dataset.

    Args beyond the base class's:
        demonstrations: the authors' demonstration set for the reader (the question-only files).
        options: the fields of :class:`NoRConfig`: ``reader`` ("direct", "cot", a
            :class:`ReaderConfig` or a mapping of its fields).
    """

    method_name = "nor"
    no_top_k_reason = "NoR retrieves nothing"

    def __init__(self, session_factory: sessionmaker[Session], name: str, llm: Any, *,
                 demonstrations: Mapping[str, Any] | DemonstrationSpec | None = None, dataset: str | None = None,
                 batch_size: int = 10, **options: Any) -> None:
        super().__init__(session_factory, name, llm, None, dataset, batch_size)
        self.config = method_config(NoRConfig, options, "NoR")
        self.demonstrations = demonstration_spec(demonstrations)

    def method_options(self, top_k: int | None) -> Mapping[str, Any]:
        demos = None if self.demonstrations is None else asdict(self.demonstrations)
        return {**run_options(self.config), "demonstrations": demos}

    def build_method(self, llm: LLM, retriever: Retriever | None, top_k: int | None) -> Method:
        demos = load_demonstrations(self.demonstrations, self.config.reader.mode, with_context=False)
        return NoR(llm, self.config, demos)


@dataclass(frozen=True)
class NoRPipelineFields(ReaderPipelineFields):
    """NoR retrieves nothing: no retrieval pipeline by default."""

    retrieval_pipeline_name: str | None = None


NoRGenerationPipelineConfig = yaml_config_class(
    "NoRGenerationPipelineConfig", NoRPipelineFields, NoRConfig, NoRGenerationPipeline,
    module=__name__, method="NoR", needs_retrieval=False)

__getattr__ = renamed_classes(__name__, {"NoRPipelineConfig": "NoRGenerationPipelineConfig"})
