"""Everything hopkit reads from the environment; no other module reads it.

Variables (each a constant of the same name below):

==========================  ==============================================================
``HOPKIT_HOME``             the working folder: default SQLite store, indexes, LLM cache,
                            reports (default ``./.hopkit``)
``HOPKIT_DB_URL``           the store's database URL (default: ``<HOPKIT_HOME>/hopkit.db``)
``HOPKIT_DATA_DIR``         the folder holding the benchmark samples and the IRCoT
                            authors' prompt files (``ircot/prompts``)
``HOPKIT_CACHE_DIR``        where downloads are cached (default ``~/.cache/hopkit``): datasets
                            in ``datasets/``, models from the Hugging Face Hub in ``hub/``
``HOPKIT_ALLOWED_TARGETS``  extra classes a config file may name (see ``hopkit.config``)
``HOPKIT_MODEL_DIR``        a folder of GGUF files you already have (default
                            ``<HOPKIT_CACHE_DIR>/models``): a model named on the Hugging Face
                            Hub (``hf://.../FILE.gguf``) whose FILE is in this folder is read
                            from there, never downloaded
``OPENAI_API_KEY``          the bearer token of an OpenAI-compatible server
``HF_ENDPOINT``             the Hugging Face Hub to download models from (a mirror; default
                            https://huggingface.co), read at each download
==========================  ==============================================================

``huggingface_hub`` reads its other variables itself when it downloads a model (``HF_TOKEN``
for a gated or private repository, ``HF_HUB_OFFLINE``); hopkit names the download folder
itself (:func:`hub_cache_dir`).

A config file may name any other variable as ``${VAR}`` or ``${VAR:-default}``
(``hopkit.config``); :func:`variable` reads those. An empty value counts as unset
for the variables above. Every value is read when asked for, never at import, so a
variable set later (or by a test) takes effect. A value hopkit parses (a folder, a URL, a
list of names) is checked then, by :mod:`hopkit.env_values`: a bad one is a ``ConfigError``
of one line naming the variable.
"""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path
from typing import Sequence

from hopkit import env_values
from hopkit.errors import ConfigError

HOPKIT_HOME = "HOPKIT_HOME"
HOPKIT_DB_URL = "HOPKIT_DB_URL"
HOPKIT_DATA_DIR = "HOPKIT_DATA_DIR"
HOPKIT_CACHE_DIR = "HOPKIT_CACHE_DIR"
HOPKIT_ALLOWED_TARGETS = "HOPKIT_ALLOWED_TARGETS"
HOPKIT_MODEL_DIR = "HOPKIT_MODEL_DIR"
OPENAI_API_KEY = "OPENAI_API_KEY"
HF_ENDPOINT = "HF_ENDPOINT"

DEFAULT_HOME = ".hopkit"


def variable(name: str) -> str | None:
    """The value of the environment variable ``name``, or None when it is not set."""
    return os.environ.get(name)


def set_default(name: str, value: str) -> None:
    """Set ``name`` to ``value`` unless it is set already (for this process and those it starts)."""
    os.environ.setdefault(name, value)


def set_variable(name: str, value: str) -> None:
    """Set ``name`` to ``value`` (for this process and those it starts)."""
    os.environ[name] = value


def unset_variable(name: str) -> None:
    """Remove the environment variable ``name`` from this process (and the processes it starts)."""
    os.environ.pop(name, None)


def _non_empty(name: str) -> str | None:
    return os.environ.get(name) or None


def hopkit_home() -> Path:
    """The working folder for the default database, indexes, the LLM cache and reports.

    Raises:
        ConfigError: ``$HOPKIT_HOME`` names a file, or a path through a file, where a folder must be.
    """
    home = Path(_non_empty(HOPKIT_HOME) or DEFAULT_HOME).expanduser()
    blocking = env_values.file_in_the_way(home)
    if blocking is not None:
        where = "" if blocking == home else f" ({blocking} is a file)"
        raise ConfigError(f"{HOPKIT_HOME}: {home} is not a folder{where}; set {HOPKIT_HOME} to a folder "
                          f"(it is created if missing), or leave it unset for ./{DEFAULT_HOME}")
    return home


def index_dir() -> Path:
    """Where retrieval indexes are saved: ``<HOPKIT_HOME>/indexes``."""
    return hopkit_home() / "indexes"


def llm_cache_path() -> Path:
    """The LLM response cache: ``<HOPKIT_HOME>/llm-cache.sqlite``."""
    return hopkit_home() / "llm-cache.sqlite"


def db_url() -> str | None:
    """``$HOPKIT_DB_URL``, or None when unset (then the store is a SQLite file in the home).

    Raises:
        ConfigError: it is not a database URL.
    """
    value = _non_empty(HOPKIT_DB_URL)
    return None if value is None else env_values.database_url(HOPKIT_DB_URL, value)


def data_dir() -> Path | None:
    """``$HOPKIT_DATA_DIR``, or None when unset.

    Raises:
        ConfigError: it names no folder (nothing, or a file).
    """
    value = _non_empty(HOPKIT_DATA_DIR)
    return None if value is None else env_values.folder(
        HOPKIT_DATA_DIR, value, must_exist=True,
        expects="the folder holding the benchmark samples and the IRCoT prompt files, or leave it unset")


def cache_dir() -> Path:
    """``$HOPKIT_CACHE_DIR``, else ``~/.cache/hopkit``: the root of the download caches.

    Raises:
        ConfigError: it names a file (or a path through one).
    """
    value = _non_empty(HOPKIT_CACHE_DIR)
    return Path.home() / ".cache" / "hopkit" if value is None else env_values.folder(
        HOPKIT_CACHE_DIR, value, must_exist=False,
        expects="a folder for the download caches (created if missing), or leave it unset for ~/.cache/hopkit")


def hub_cache_dir() -> Path:
    """Where models named on the Hugging Face Hub are cached: ``<HOPKIT_CACHE_DIR>/hub``.

    The folder has the Hub's own cache layout (``models--OWNER--NAME/snapshots/...``).
    """
    return cache_dir() / "hub"


def model_dir() -> Path:
    """``$HOPKIT_MODEL_DIR``, else ``<HOPKIT_CACHE_DIR>/models``: GGUF files used instead of downloading them.

    Raises:
        ConfigError: it names a file (or a path through one).
    """
    value = _non_empty(HOPKIT_MODEL_DIR)
    return cache_dir() / "models" if value is None else env_values.folder(
        HOPKIT_MODEL_DIR, value, must_exist=False,
        expects="the folder of the model files you already have, or leave it unset for <HOPKIT_CACHE_DIR>/models")


def hf_endpoint() -> str | None:
    """``$HF_ENDPOINT`` (the Hub's URL, for a mirror), or None when unset: huggingface_hub's default.

    huggingface_hub reads it once, when it is imported; hopkit reads it at each download and
    passes it on, so a value set later (or by a test) takes effect too.

    Raises:
        ConfigError: it is not an http(s) URL with a host.
    """
    value = _non_empty(HF_ENDPOINT)
    return None if value is None else env_values.http_url(
        HF_ENDPOINT, value, expects="the URL of the Hugging Face Hub or a mirror (https://huggingface.co), or leave "
                                    "it unset")


def allowed_targets() -> tuple[str, ...]:
    """Dotted names listed in ``$HOPKIT_ALLOWED_TARGETS`` (separated by commas or spaces).

    Raises:
        ConfigError: one is not a dotted Python name.
    """
    return env_values.dotted_names(HOPKIT_ALLOWED_TARGETS, os.environ.get(HOPKIT_ALLOWED_TARGETS, ""),
                                   expects="the dotted names (module.Class) of classes a config may name, "
                                           "separated by commas or spaces")


def variables_matching(patterns: Sequence[str]) -> dict[str, str]:
    """Every environment variable whose name matches one of the shell ``patterns`` (``HOPKIT_*``, an exact
    name): what Ray workers inherit."""
    return {name: value for name, value in os.environ.items()
            if any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)}


def python_path() -> list[str]:
    """The folders of ``$PYTHONPATH``, in order."""
    return [part for part in os.environ.get("PYTHONPATH", "").split(os.pathsep) if part]


def openai_api_key() -> str | None:
    """``$OPENAI_API_KEY`` as set (None when unset), for the OpenAI-compatible backend.

    Raises:
        ConfigError: it holds a space, a control character or a character that is not ASCII.
    """
    value = os.environ.get(OPENAI_API_KEY)
    return None if not value else env_values.secret_token(
        OPENAI_API_KEY, value, expects="the key alone (no quotes, spaces or newline), or leave it unset")
