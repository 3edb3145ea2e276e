"""Help texts several commands share."""

from __future__ import annotations

from hopkit.config import named_configs
from hopkit.errors import DETERMINISTIC_FAILURES

KEEP_FAILED_HELP = ("on resume, leave stored the failed questions a rerun would fail again with greedy decoding ("
                    + ", ".join(DETERMINISTIC_FAILURES) + ") instead of asking them again; failures on a model "
                    "server or the store are still retried")


def llm_help(default: str | None = None) -> str:
    names = ", ".join(named_configs("llm"))
    first = f"LLM config name (default {default})" if default else "LLM config name"
    return (f"{first}: {names} (docs/models.md says where each model comes from), or a GGUF file on the "
            "Hugging Face Hub: hf://OWNER/NAME/FILE.gguf")


def retrieval_help() -> str:
    return (f"retrieval config name: {', '.join(named_configs('retrieval'))} (docs/configs.md, \"Shipped "
            "retrieval configs\"), or one of configs/retrieval/ in the current folder")
