"""The campaign answers each variant with the model it can run on: the campaign's llama.cpp model, or the
same GGUF through transformers for a method that needs the attention (DRAGIN), each loaded once."""

from __future__ import annotations

import pytest

from hopkit.campaign.method_models import MethodModels
from hopkit.llm.fake import ScriptedLLM

pytestmark = pytest.mark.unit


def loader(loaded: list[str]):  # type: ignore[no-untyped-def]
    def load(name: str) -> ScriptedLLM:
        loaded.append(name)
        return ScriptedLLM([], token_scores=-0.1, entropies=0.5 if name.endswith("-transformers") else None)
    return load


def test_a_method_that_needs_attention_gets_the_transformers_twin_and_the_others_the_campaign_model() -> None:
    loaded: list[str] = []
    models = MethodModels("qwen2.5-coder-1.5b-4k", loader(loaded))
    assert models.name_for("oner", "hotpotqa") == "qwen2.5-coder-1.5b-4k"
    assert models.name_for("flare", "hotpotqa") == "qwen2.5-coder-1.5b-4k"  # token scores: llama.cpp has them
    assert models.name_for("dragin", "hotpotqa") == "qwen2.5-coder-1.5b-transformers"
    models.model("qwen2.5-coder-1.5b-transformers")
    models.model("qwen2.5-coder-1.5b-transformers")
    assert loaded == ["qwen2.5-coder-1.5b-4k", "qwen2.5-coder-1.5b-transformers"]  # each once


def test_a_model_without_a_known_twin_is_refused_for_dragin_by_name() -> None:
    models = MethodModels("my-server", loader([]))
    with pytest.raises(SystemExit, match="dragin needs attention, which my-server"):
        models.name_for("dragin", "hotpotqa")
