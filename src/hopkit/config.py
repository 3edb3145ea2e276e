"""YAML configs: ``_target_`` plus options, and LLMs and retrievers referenced by name.

A config names a callable with ``_target_`` (a class, a classmethod such as
``hopkit.llm.llama_cpp.LlamaCppLLM.load``, or a function) and gives its keyword
options. ``${VAR}`` and ``${VAR:-default}`` in string values are read from the
environment. Named configs (``llm: smollm2``) are looked up as
``configs/<kind>/<name>.yaml`` in the current directory first, then in the copy
shipped with hopkit.
"""

from __future__ import annotations

import importlib
import os
import re
from pathlib import Path
from typing import Any, Callable, Mapping

import yaml

from hopkit.errors import ConfigError, UnknownNameError

PACKAGED_CONFIGS = Path(__file__).resolve().parent / "configs"
_ENV_PATTERN = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-(.*?))?\}")


def config_dirs(kind: str) -> list[Path]:
    """Where named configs of ``kind`` are looked up, first match wins."""
    return [Path.cwd() / "configs" / kind, PACKAGED_CONFIGS / kind]


def _expand_env(value: Any, source: str) -> Any:
    if isinstance(value, str):
        def substitute(match: re.Match[str]) -> str:
            name, default = match.group(1), match.group(2)
            if name in os.environ:
                return os.environ[name]
            if default is not None:
                return os.path.expanduser(default)
            raise ConfigError(f"{source}: environment variable {name} is not set and has no default")
        return _ENV_PATTERN.sub(substitute, value)
    if isinstance(value, dict):
        return {k: _expand_env(v, source) for k, v in value.items()}
    if isinstance(value, list):
        return [_expand_env(v, source) for v in value]
    return value


def load_yaml(path: str | Path) -> dict[str, Any]:
    """Read a YAML mapping, with environment variables expanded.

    Raises:
        ConfigError: the file is missing, is not YAML, or is not a mapping.
    """
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{path}{line}: not valid YAML ({getattr(exc, 'problem', exc)})") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a mapping of options at the top level")
    return _expand_env(raw, str(path))


def resolve_target(target: str, source: str) -> Callable[..., Any]:
    """Import a dotted path to a callable (``module.Class`` or ``module.Class.method``)."""
    parts = target.split(".")
    for split in range(len(parts) - 1, 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:split]))
        except ModuleNotFoundError:
            continue
        try:
            for attribute in parts[split:]:
                obj = getattr(obj, attribute)
        except AttributeError:
            break
        if callable(obj):
            return obj  # type: ignore[no-any-return]
        break
    raise ConfigError(f"{source}: field '_target_': cannot import {target!r}")


def instantiate(spec: Mapping[str, Any], source: str, **injected: Any) -> Any:
    """Call ``spec['_target_']`` with the other keys (plus ``injected``) as keyword options.

    Raises:
        ConfigError: ``_target_`` is missing or cannot be imported, or an option is rejected.
    """
    if "_target_" not in spec:
        raise ConfigError(f"{source}: missing field '_target_'")
    target = resolve_target(str(spec["_target_"]), source)
    options = {k: v for k, v in spec.items() if k != "_target_"}
    try:
        return target(**options, **injected)
    except TypeError as exc:
        raise ConfigError(f"{source}: {exc}") from None


def named_config_path(kind: str, name: str) -> Path:
    """The file of the named config ``name`` of ``kind`` (``llm``, ``retrieval``)."""
    candidate = Path(name)
    if candidate.suffix in {".yaml", ".yml"} and candidate.exists():
        return candidate
    for directory in config_dirs(kind):
        path = directory / f"{name}.yaml"
        if path.exists():
            return path
    known = sorted({p.stem for d in config_dirs(kind) if d.exists() for p in d.glob("*.yaml")})
    raise UnknownNameError(f"{kind} config", name, known)


def load_named(kind: str, name: str, **injected: Any) -> Any:
    """Instantiate the named config ``configs/<kind>/<name>.yaml``."""
    path = named_config_path(kind, name)
    return instantiate(load_yaml(path), str(path), **injected)


def named_spec(kind: str, name: str) -> dict[str, Any]:
    """The options of a named config, for run hashes."""
    return load_yaml(named_config_path(kind, name))


def load_llm(name: str) -> Any:
    """The LLM of the named config ``configs/llm/<name>.yaml``.

    Besides the backend's own options, the config may say ``cache: true`` to keep every
    completion in an on-disk cache (``$HOPKIT_HOME/llm-cache.sqlite``) keyed by model,
    prompt and parameters, so a rerun with the same prompts costs no model call.
    """
    from hopkit.llm.cache import CachedLLM
    from hopkit.paths import llm_cache_path

    path = named_config_path("llm", name)
    spec = load_yaml(path)
    cache = spec.pop("cache", False)
    if not isinstance(cache, bool):
        raise ConfigError(f"{path}: field 'cache' must be true or false, got {cache!r}")
    llm = instantiate(spec, str(path))
    return CachedLLM(llm, llm_cache_path()) if cache else llm
