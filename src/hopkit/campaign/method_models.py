"""The model each benchmarked variant answers with: the campaign's llama.cpp model, or, for a method that
needs a capability llama.cpp does not have (DRAGIN's attention), the same GGUF file through the
``transformers`` backend (its config named in :data:`TWINS`). Each model is loaded once, when a variant
first needs it."""

from __future__ import annotations

from typing import Any, Callable

from hopkit.campaign.qa_pipelines import pipeline_for
from hopkit.campaign.variants import load_variant
from hopkit.llm.capabilities import capabilities_of
from hopkit.methods.registry import entries

#: for each campaign model config, the config of the same GGUF file through the transformers backend
TWINS: dict[str, str] = {"qwen2.5-coder-1.5b-4k": "qwen2.5-coder-1.5b-transformers",
                         "smollm2": "smollm2-transformers"}


class MethodModels:
    """The models a campaign's variants answer with, loaded on first use by ``load(config name)``.

    Args:
        name: the campaign's model config (``--llm``).
        load: how a model config is loaded (:func:`hopkit.config.load_llm`).
    """

    def __init__(self, name: str, load: Callable[[str], Any]) -> None:
        self.name = name
        self._load = load
        self._loaded: dict[str, Any] = {}

    def model(self, name: str) -> Any:
        if name not in self._loaded:
            self._loaded[name] = self._load(name)
        return self._loaded[name]

    def name_for(self, variant: str, dataset: str) -> str:
        """The model config ``variant`` answers with on ``dataset``.

        Raises:
            SystemExit: the method needs a capability the campaign's model lacks and no twin config has it.
        """
        method = str(load_variant(variant, dataset).config.get("method", variant))
        needs = set(entries()[method].needs)
        if needs <= capabilities_of(self.model(self.name)):
            return self.name
        twin = TWINS.get(self.name)
        if twin is None:
            raise SystemExit(f"{variant} needs {', '.join(sorted(needs))}, which {self.name} (llama.cpp) does not "
                             f"have, and no transformers config of the same model is known ({sorted(TWINS)})")
        return twin

    def pipeline(self, variant: str, dataset: str, session_factory: Any, **options: Any) -> Any:
        """Variant ``variant``'s pipeline on ``dataset``, answering with the model it needs (:meth:`name_for`);
        ``options`` go to :func:`~hopkit.campaign.qa_pipelines.pipeline_for`."""
        name = self.name_for(variant, dataset)
        return pipeline_for(variant, dataset, session_factory, self.model(name), llm_name=name, **options)
