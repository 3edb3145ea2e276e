"""NoR facade: the question alone, no retrieval. Both classes are derived from the method's
registry entry (:mod:`hopkit.pipelines.generation.registered`); this module keeps the names
earlier releases defined here.
"""

from hopkit.pipelines.generation.registered import method_pipeline, method_pipeline_config
from hopkit.pipelines.generation.declared import renamed_classes

NoRGenerationPipeline = method_pipeline("nor")
NoRGenerationPipelineConfig = method_pipeline_config("nor")

__getattr__ = renamed_classes(__name__, {"NoRPipelineConfig": "NoRGenerationPipelineConfig"})

__all__ = ["NoRGenerationPipeline", "NoRGenerationPipelineConfig"]
