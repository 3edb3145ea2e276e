"""MIGRES facade: the method over a stored dataset, with its YAML config.

The retriever comes from the retrieval pipeline (the paper's BM25 with k1=0.9, b=0.4 is
the named config ``bm25-migres``); the judges are built on the run's LLM from the
``reranker`` and ``nli`` options; the authors' demonstrations are read from
``$HOPKIT_DATA_DIR/migres`` when ``few_shot`` is on.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from hopkit.errors import ConfigError
from hopkit.llm.protocol import LLM
from hopkit.methods.migres import MIGRES, MIGRESConfig
from hopkit.methods.protocol import Method
from hopkit.options import run_options
from hopkit.pipelines.base import GenerationPipeline
from hopkit.pipelines.generation.config import GenerationPipelineConfig
from hopkit.pipelines.generation.declared import method_config, yaml_config_class
from hopkit.pipelines.retrieval.base import RetrievalPipeline
from hopkit.retrieval.protocol import Retriever


class MIGRESGenerationPipeline(GenerationPipeline):
    """MIGRES over every question of a stored dataset.

    Args beyond the base class's:
        options: the fields of :class:`MIGRESConfig` (``max_iterations``,
            ``relevance_threshold``, ``reranker``, ``nli``, ``few_shot``...).
    """

    method_name = "migres"
    no_top_k_reason = "MIGRES retrieves hits_per_query passages for each query it asks (its own option)"

    def __init__(self, session_factory: sessionmaker[Session], name: str, llm: Any,
                 retrieval_pipeline: RetrievalPipeline, *, dataset: str | None = None, batch_size: int = 10,
                 **options: Any) -> None:
        super().__init__(session_factory, name, llm, retrieval_pipeline, dataset, batch_size)
        self.config = method_config(MIGRESConfig, options, "MIGRES")

    def method_options(self, top_k: int | None) -> dict[str, Any]:
        return run_options(self.config)

    def build_method(self, llm: LLM, retriever: Retriever | None, top_k: int | None) -> Method:
        if retriever is None:
            raise ConfigError("MIGRES needs a retrieval pipeline")
        demonstrations = None
        if self.config.few_shot:
            from hopkit.prompts.migres_demonstrations import load_migres_demonstrations

            demonstrations = load_migres_demonstrations(self.config.demonstration_set)
        return MIGRES(llm, retriever, self.config, demonstrations)


MIGRESGenerationPipelineConfig = yaml_config_class(
    "MIGRESGenerationPipelineConfig", GenerationPipelineConfig, MIGRESConfig, MIGRESGenerationPipeline,
    module=__name__, method="MIGRES", needs_retrieval=True)
