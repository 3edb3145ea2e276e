"""IRCoT facade: interleaved retrieval and chain of thought, as the documentation page shows
it. ``top_k`` is the documented alias of ``k_per_step``: given to the constructor, the YAML
config or ``run(top_k=...)``, it is the K that retrieves. Both classes are derived from the
method's registry entry (:mod:`hopkit.pipelines.generation.registered`); this module keeps
the names earlier releases defined here.
"""

from hopkit.pipelines.generation.registered import method_pipeline, method_pipeline_config

IRCoTGenerationPipeline = method_pipeline("ircot")
IRCoTGenerationPipelineConfig = method_pipeline_config("ircot")

__all__ = ["IRCoTGenerationPipeline", "IRCoTGenerationPipelineConfig"]
