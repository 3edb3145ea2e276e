"""OneR facade: one retrieval with the question, then the reader. Both classes are derived from
the method's registry entry (:mod:`hopkit.pipelines.generation.registered`); this module
keeps the names earlier releases defined here.
"""

from hopkit.pipelines.generation.registered import method_pipeline, method_pipeline_config
from hopkit.pipelines.generation.declared import renamed_classes

OneRGenerationPipeline = method_pipeline("oner")
OneRGenerationPipelineConfig = method_pipeline_config("oner")

__getattr__ = renamed_classes(__name__, {"OneRPipelineConfig": "OneRGenerationPipelineConfig"})

__all__ = ["OneRGenerationPipeline", "OneRGenerationPipelineConfig"]
