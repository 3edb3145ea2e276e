"""What the dedicated-model judges share: importing their optional packages, and batching."""

from __future__ import annotations

import importlib
from typing import Any, Iterator, Sequence, TypeVar

from hopkit.errors import ConfigError

Item = TypeVar("Item")

INSTALL_HINT = ("pip install 'hopkit[judges]' (it brings transformers, sentence-transformers and torch; "
                "to keep a CPU-only machine small, install a CPU build of torch first)")


def import_optional(module: str, *, needed_by: str) -> Any:
    """Import ``module``, an optional dependency of the ``judges`` extra.

    Args:
        module: e.g. ``"transformers"``.
        needed_by: the backend that needs it, for the message.

    Raises:
        ConfigError: it is not installed (the message says how to install it).
    """
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ConfigError(f"{needed_by} needs the {module} package, which is not installed ({error}): "
                          f"{INSTALL_HINT}") from error


def batches(items: Sequence[Item], size: int) -> Iterator[Sequence[Item]]:
    """``items`` in consecutive slices of at most ``size``."""
    for start in range(0, len(items), size):
        yield items[start:start + size]


def load_transformers(auto_class: str, model: str, *, device: str | None, needed_by: str) -> tuple[Any, Any, str]:
    """Load a tokenizer and a model of ``transformers.<auto_class>`` for inference.

    Args:
        auto_class: e.g. ``"AutoModelForSequenceClassification"``.
        model: a Hugging Face name or a folder saved with ``save_pretrained``.
        device: ``"cpu"``, ``"cuda"``...; None: a GPU when torch sees one, else the CPU.
        needed_by: the backend, for messages.

    Returns:
        The tokenizer, the model (in evaluation mode, on the device) and the device.

    Raises:
        ConfigError: transformers or torch is not installed, or the model cannot be loaded.
    """
    transformers = import_optional("transformers", needed_by=needed_by)
    torch = import_optional("torch", needed_by=needed_by)
    chosen = device or ("cuda" if torch.cuda.is_available() else "cpu")
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(model)
        network = getattr(transformers, auto_class).from_pretrained(model)
    except (OSError, ValueError) as error:  # not found offline, no such model, not this kind of model
        raise ConfigError(f"{needed_by}: cannot load {model!r} ({' '.join(str(error).split())[:300]}); give a "
                          "Hugging Face model name you can download or a folder saved with save_pretrained") \
            from error
    return tokenizer, network.to(chosen).eval(), chosen
