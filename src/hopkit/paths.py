"""Where hopkit keeps its files: ``$HOPKIT_HOME`` (default ``./.hopkit``)."""

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
