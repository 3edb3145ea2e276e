"""MIGRES facade: the method over a stored dataset, with its YAML config. The retriever comes
from the retrieval pipeline (the paper's BM25 with k1=0.9, b=0.4 is the named config
``bm25-migres``); the judges are built on the run's LLM from the ``reranker`` and ``nli``
options. Both classes are derived from the method's registry entry
(:mod:`hopkit.pipelines.generation.registered`); this module keeps the names earlier
releases defined here.
"""

from hopkit.pipelines.generation.registered import method_pipeline, method_pipeline_config

MIGRESGenerationPipeline = method_pipeline("migres")
MIGRESGenerationPipelineConfig = method_pipeline_config("migres")

__all__ = ["MIGRESGenerationPipeline", "MIGRESGenerationPipelineConfig"]
