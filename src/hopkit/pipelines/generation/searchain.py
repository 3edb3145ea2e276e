"""SearChain facade: Search-in-the-Chain over a stored dataset. ``top_k`` is the passages
retrieved per node (1, the paper's top-1, by default). Both classes are derived from the
method's registry entry (:mod:`hopkit.pipelines.generation.registered`); this module keeps
the names earlier releases defined here.
"""

from hopkit.pipelines.generation.registered import method_pipeline, method_pipeline_config

SearChainGenerationPipeline = method_pipeline("searchain")
SearChainGenerationPipelineConfig = method_pipeline_config("searchain")

__all__ = ["SearChainGenerationPipeline", "SearChainGenerationPipelineConfig"]
