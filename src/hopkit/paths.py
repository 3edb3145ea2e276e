"""Where hopkit keeps its files: ``$HOPKIT_HOME`` (default ``./.hopkit``).

Also the one reader of ``$HOPKIT_ALLOWED_TARGETS``, the user's list of extra classes
a config file may name (see ``hopkit.config``).
"""

from __future__ import annotations

import os
from pathlib import Path


def hopkit_home() -> Path:
    """The working folder for the default database, indexes and the LLM cache."""
    return Path(os.environ.get("HOPKIT_HOME", ".hopkit")).expanduser()


def index_dir() -> Path:
    return hopkit_home() / "indexes"


def llm_cache_path() -> Path:
    return hopkit_home() / "llm-cache.sqlite"


ALLOWED_TARGETS_ENV = "HOPKIT_ALLOWED_TARGETS"


def allowed_targets_from_env() -> tuple[str, ...]:
    """Dotted names listed in ``$HOPKIT_ALLOWED_TARGETS`` (separated by commas or spaces)."""
    value = os.environ.get(ALLOWED_TARGETS_ENV, "")
    return tuple(name for name in value.replace(",", " ").split() if name)
