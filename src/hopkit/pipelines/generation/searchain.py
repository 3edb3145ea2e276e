"""SearChain facade: Search-in-the-Chain over a stored dataset, as docs/adding-a-method.md shows it.

``top_k`` given to ``run`` is the passages retrieved per node (1, the paper's top-1, by default).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from sqlalchemy.orm import Session, sessionmaker

from hopkit.errors import ConfigError
from hopkit.llm.protocol import LLM
from hopkit.methods.protocol import Method
from hopkit.methods.searchain import SearChain, SearChainConfig
from hopkit.options import run_options
from hopkit.pipelines.base import GenerationPipeline
from hopkit.pipelines.generation.config import GenerationPipelineConfig
from hopkit.pipelines.generation.declared import method_config, yaml_config_class
from hopkit.pipelines.retrieval.base import RetrievalPipeline
from hopkit.retrieval.protocol import Retriever


class SearChainGenerationPipeline(GenerationPipeline):
    """SearChain over every question of a stored dataset.

    Args beyond the base class's:
        options: the method's options, the fields of :class:`SearChainConfig` (``task``,
            ``max_rounds``, ``confidence_threshold``, ``reader``, ``duplicate_check``...).
    """

    method_name = "searchain"
    top_k_option = "top_k"

    def __init__(self, session_factory: sessionmaker[Session], name: str, llm: Any,
                 retrieval_pipeline: RetrievalPipeline, *, dataset: str | None = None, batch_size: int = 10,
                 **options: Any) -> None:
        super().__init__(session_factory, name, llm, retrieval_pipeline, dataset, batch_size)
        self.config = method_config(SearChainConfig, options, "SearChain")

    def _config(self, top_k: int | None) -> SearChainConfig:
        return self.config if top_k is None else replace(self.config, top_k=top_k)

    def method_options(self, top_k: int | None) -> Mapping[str, Any]:
        return run_options(self._config(top_k))

    def build_method(self, llm: LLM, retriever: Retriever | None, top_k: int | None) -> Method:
        if retriever is None:
            raise ConfigError("SearChain needs a retrieval pipeline")
        return SearChain(llm, retriever, self._config(top_k))


SearChainGenerationPipelineConfig = yaml_config_class(
    "SearChainGenerationPipelineConfig", GenerationPipelineConfig, SearChainConfig, SearChainGenerationPipeline,
    module=__name__, method="SearChain", needs_retrieval=True)
