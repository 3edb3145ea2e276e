"""YAML configs: ``_target_`` plus options, and LLMs and retrievers referenced by name.

A config names what to build with ``_target_`` and gives its keyword options.
``${VAR}`` and ``${VAR:-default}`` in string values are read from the environment.
Named configs (``llm: smollm2``) are looked up as ``configs/<kind>/<name>.yaml`` in
the current directory first, then in the copy shipped with hopkit.

What ``_target_`` may name is checked before anything is called (docs/configs.md):
a class, or a public classmethod of one (``hopkit.llm.llama_cpp.LlamaCppLLM.load``),
that subclasses one of the bases of the config's kind (:data:`TARGET_KINDS`), or a
name the user listed with :func:`allow_targets` or ``$HOPKIT_ALLOWED_TARGETS``. A
plain function such as ``os.system`` is refused; standard-library modules and
names with a leading underscore are refused without being imported. The options
are then checked against the target's annotations (types and ranges, see
:mod:`hopkit.options`), still before the call.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

import yaml

from hopkit import environment
from hopkit.errors import ConfigError, DownloadError, HopkitError, UnknownNameError
from hopkit.options import check_value, parameter_types, shown

PACKAGED_CONFIGS = Path(__file__).resolve().parent / "configs"
_ENV_PATTERN = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-(.*?))?\}")
_DOTTED_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")


@dataclass(frozen=True)
class TargetKind:
    """What the configs of one kind (one folder of ``configs/``) may name.

    Attributes:
        bases: dotted names of hopkit classes; a ``_target_`` must be one of them or a
            subclass (or a public classmethod of such a class).
        description: the rule in words, for error messages.
        builds: what the built object must offer (an attribute that is callable), or
            None when ``bases`` already says it.
    """

    bases: tuple[str, ...]
    description: str
    builds: str | None = None


TARGET_KINDS: dict[str, TargetKind] = {
    "pipelines": TargetKind(
        ("hopkit.pipelines.generation.config.GenerationPipelineConfig",),
        "a generation pipeline config class (GenerationPipelineConfig or a subclass)", builds="build"),
    "retrieval": TargetKind(
        ("hopkit.pipelines.retrieval.base.RetrievalPipeline",),
        "a retrieval pipeline class (RetrievalPipeline or a subclass)", builds="retriever"),
    "llm": TargetKind(
        ("hopkit.llm.llama_cpp.LlamaCppLLM", "hopkit.llm.openai_compat.OpenAICompatibleLLM",
         "hopkit.llm.transformers_backend.TransformersLLM", "hopkit.llm.fake.ScriptedLLM"),
        "one of hopkit's LLM backends (LlamaCppLLM.load, OpenAICompatibleLLM, TransformersLLM.load, ScriptedLLM) "
        "or a subclass",
        builds="complete"),
}

# Names the user allowed with allow_targets(); $HOPKIT_ALLOWED_TARGETS is read at each check.
_USER_TARGETS: set[str] = set()


def allow_targets(*targets: str | Callable[..., Any]) -> None:
    """Let config files name these classes or callables too, for every kind.

    A listed class also allows its public classmethods (``mypkg.MyLLM`` allows
    ``mypkg.MyLLM.load``). The same list can be given to the command line as
    ``$HOPKIT_ALLOWED_TARGETS`` (dotted names separated by commas or spaces).

    Args:
        targets: dotted names (``"mypkg.llms.MyLLM"``) or the objects themselves.
    """
    for target in targets:
        name = target if isinstance(target, str) else f"{target.__module__}.{target.__qualname__}"
        _USER_TARGETS.add(name)


def _listed(target: str) -> str | None:
    """How ``target`` is listed by the user: "exact", "classmethod" (its class is), or None."""
    names = _USER_TARGETS | set(environment.allowed_targets())
    if target in names:
        return "exact"
    owner, _, attribute = target.rpartition(".")
    if owner in names and not attribute.startswith("_"):
        return "classmethod"
    return None


def config_dirs(kind: str) -> list[Path]:
    """Where named configs of ``kind`` are looked up, first match wins."""
    return [Path.cwd() / "configs" / kind, PACKAGED_CONFIGS / kind]


# config file -> {field: the environment variable its value was taken from}, as the file's last load found
_FROM_ENVIRONMENT: dict[str, dict[str, str]] = {}


def _naming_variables(source: str, message: str) -> str:
    """``message`` (an error about the config ``source``) with the variables named that the fields it names took
    their values from: ``(field 'base_url' is $OPENAI_BASE_URL)``."""
    taken = [f"field {field!r} is ${name}" for field, name in _FROM_ENVIRONMENT.get(source, {}).items()
             if re.search(rf"(?<![\w.]){re.escape(field.rsplit('.', 1)[-1])}(?!\w)", message)
             and f"${name}" not in message]
    return f"{message} ({'; '.join(taken)})" if taken else message


def _expand_env(value: Any, source: str, field: str | None = None) -> Any:
    if isinstance(value, str):
        def substitute(match: re.Match[str]) -> str:
            name, default = match.group(1), match.group(2)
            value = environment.variable(name)
            if value is not None:
                if field is not None:
                    _FROM_ENVIRONMENT.setdefault(source, {})[field] = name
                return value
            if default is not None:
                return os.path.expanduser(default)
            where = f" (field {field!r})" if field is not None else ""
            raise ConfigError(f"{source}: environment variable {name} is not set and has no default{where}")
        return _ENV_PATTERN.sub(substitute, value)
    if isinstance(value, dict):
        return {k: _expand_env(v, source, str(k) if field is None else f"{field}.{k}") for k, v in value.items()}
    if isinstance(value, list):
        return [_expand_env(v, source, field) for v in value]
    return value


# A config is a few dozen values; aliases (``*name``) may share parts of it, but a file whose
# aliases would expand past this many values is refused before anything is built from it.
MAX_EXPANDED_VALUES = 10_000


class _AliasBomb(yaml.YAMLError):
    """Aliases that expand past :data:`MAX_EXPANDED_VALUES`, or refer to themselves."""


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader that counts what the aliases expand to before building anything."""

    def get_single_node(self) -> Any:
        node = super().get_single_node()
        if node is not None:
            _expanded_size(node, {}, set())
        return node


def _expanded_size(node: yaml.Node, sizes: dict[int, int], open_nodes: set[int]) -> int:
    """How many values ``node`` stands for once every alias in it is copied out (memoised per node)."""
    key = id(node)
    if key in sizes:
        return sizes[key]
    if key in open_nodes:
        raise _AliasBomb("an alias refers to the value it is part of (a recursive &anchor)")
    open_nodes.add(key)
    size = 1
    if isinstance(node, yaml.SequenceNode):
        size += sum(_expanded_size(child, sizes, open_nodes) for child in node.value)
    elif isinstance(node, yaml.MappingNode):
        size += sum(_expanded_size(k, sizes, open_nodes) + _expanded_size(v, sizes, open_nodes)
                    for k, v in node.value)
    open_nodes.discard(key)
    if size > MAX_EXPANDED_VALUES:
        raise _AliasBomb(f"its aliases (*name) expand to more than {MAX_EXPANDED_VALUES:,} values; "
                         "a config needs far fewer: write the values out, or share less")
    sizes[key] = size
    return size


def load_yaml(path: str | Path) -> dict[str, Any]:
    """Read a YAML mapping, with environment variables expanded.

    Raises:
        ConfigError: the file is missing, is a folder, cannot be read, is not UTF-8, is
            not YAML, or is not a mapping (one line naming the path).
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a folder, not a config file") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the config file ({exc.strerror or exc})") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte 0x{data[exc.start]:02x} at position {exc.start}); "
                          "save the file as UTF-8") from None
    try:
        raw = yaml.load(text, Loader=_BoundedLoader)  # noqa: S506 (a SafeLoader, bounded)
    except _AliasBomb as exc:
        raise ConfigError(f"{path}: refused: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = " ".join(str(getattr(exc, "problem", None) or exc).split())  # one line
        raise ConfigError(f"{path}{line}: not valid YAML ({problem})") from None
    except (ValueError, RecursionError) as exc:  # e.g. a date like 2024-02-30, or absurd nesting
        raise ConfigError(f"{path}: not valid YAML ({type(exc).__name__}: {' '.join(str(exc).split())})") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a mapping of options at the top level")
    _FROM_ENVIRONMENT.pop(str(path), None)
    return _expand_env(raw, str(path))  # type: ignore[no-any-return]


def _kind(kind: str | None) -> TargetKind:
    if kind is None:
        return TargetKind(tuple(base for k in TARGET_KINDS.values() for base in k.bases), "a hopkit config class")
    return TARGET_KINDS.get(kind, TargetKind((), f"only what the user listed (no {kind!r} classes are built in)"))


def _import_dotted(target: str, where: str) -> Any:
    """The object at ``target``: the longest importable module prefix, then attributes."""
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
        return obj
    raise ConfigError(f"{where}: cannot import {target!r}")


def _owner_class(obj: Any) -> type | None:
    """``obj`` if it is a class, its class if it is a classmethod bound to one, else None."""
    if isinstance(obj, type):
        return obj
    if inspect.ismethod(obj) and isinstance(obj.__self__, type) and not obj.__name__.startswith("_"):
        return obj.__self__
    return None


def resolve_target(target: Any, source: str, kind: str | None = None) -> Callable[..., Any]:
    """The class (or classmethod) a config's ``_target_`` names, if the config may name it.

    Args:
        target: the ``_target_`` value, a dotted name.
        source: the config file, for messages.
        kind: the config's kind (``pipelines``, ``retrieval``, ``llm``: the keys of
            :data:`TARGET_KINDS`); None allows the targets of every kind.

    Raises:
        ConfigError: naming the file and ``_target_``: not a dotted name, cannot be
            imported, or not allowed for ``kind``. Nothing is called before this check;
            standard-library modules are not even imported.
    """
    where = f"{source}: field '_target_'"
    if not isinstance(target, str) or not _DOTTED_NAME.fullmatch(target):
        raise ConfigError(f"{where}: expected a dotted name such as hopkit.llm.llama_cpp.LlamaCppLLM.load, "
                          f"got {shown(target)}")
    rule = _kind(kind)
    refusal = (f"{where}: {target!r} is not allowed: a config{f' of kind {kind!r}' if kind else ''} may name "
               f"{rule.description}, "
               f"or a class you list with hopkit.config.allow_targets() or ${environment.HOPKIT_ALLOWED_TARGETS} "
               "(see docs/configs.md)")
    listed = _listed(target)
    parts = target.split(".")
    foreign_stdlib = parts[0] != "hopkit" and (parts[0] in sys.stdlib_module_names
                                               or parts[0] in sys.builtin_module_names)
    if listed is None and (foreign_stdlib or any(part.startswith("_") for part in parts)):
        raise ConfigError(refusal)
    obj = _import_dotted(target, where)
    owner = _owner_class(obj)
    if listed == "exact" and callable(obj):
        return obj  # type: ignore[no-any-return]
    if listed == "classmethod" and owner is not None and owner is not obj:
        return obj  # type: ignore[no-any-return]
    bases = tuple(_import_dotted(base, where) for base in rule.bases)
    if owner is None or not bases or not issubclass(owner, bases):
        raise ConfigError(refusal)
    return obj  # type: ignore[no-any-return]


def _check_options(target: Callable[..., Any], options: Mapping[Any, Any], injected: Mapping[str, Any],
                   source: str) -> None:
    """Names, presence, types and ranges of the options, against ``target``'s signature."""
    try:
        parameters = inspect.signature(target).parameters
    except (TypeError, ValueError):  # no signature to check against: the call itself will tell
        return
    named = {name for name, p in parameters.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    open_ended = any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    hints = parameter_types(target)
    for name, value in options.items():
        if not isinstance(name, str):
            raise ConfigError(f"{source}: field {name!r}: option names must be strings")
        if name in injected:
            raise ConfigError(f"{source}: field {name!r} is set by hopkit, not by the config file")
        if name not in named and not open_ended:
            known = ", ".join(sorted(named - set(injected)))
            raise ConfigError(f"{source}: field {name!r}: unknown option (unexpected keyword argument "
                              f"{name!r}); known: {known}")
        if name in named and name in hints:
            check_value(value, hints[name], f"{source}: field {name!r}")
    for name in sorted(named - set(options) - set(injected)):
        if parameters[name].default is inspect.Parameter.empty:
            raise ConfigError(f"{source}: field {name!r} is required")


def instantiate(spec: Mapping[str, Any], source: str, *, kind: str | None = None, **injected: Any) -> Any:
    """Call ``spec['_target_']`` with the other keys (plus ``injected``) as keyword options.

    The target is checked (:func:`resolve_target`) and the options are checked against
    its annotations before it is called.

    A pipeline config's own forms (``method: ircot``, ``experiment: flare``) are read by
    :func:`hopkit.pipelines.configs.instantiate_pipeline_config`, which then calls this.

    Args:
        spec: the config's mapping.
        source: the config file, for messages.
        kind: the config's kind (a key of :data:`TARGET_KINDS`); None: any kind's targets.
        injected: options hopkit passes itself (``session_factory``), not checked.

    Raises:
        ConfigError: naming ``source`` and the field: ``_target_`` is missing, not
            allowed or cannot be imported, an option is unknown, missing, of the wrong
            type or out of range, or the target rejected it.
        DownloadError: the target could not download a file it was given (an ``hf://``
            model), raised as it is.
    """
    if "_target_" not in spec:
        raise ConfigError(f"{source}: missing field '_target_'")
    target = resolve_target(spec["_target_"], source, kind)
    options = {k: v for k, v in spec.items() if k != "_target_"}
    try:
        _check_options(target, options, injected, source)
    except ConfigError as exc:
        raise ConfigError(_naming_variables(source, str(exc))) from None
    try:
        built = target(**options, **injected)
    except ConfigError as exc:
        raise ConfigError(_naming_variables(source, f"{source}: {exc}")) from None
    except DownloadError:  # not a wrong option: the message names the file, why it failed and what to do
        raise
    except HopkitError as exc:  # a backend's own check of its options (model file missing...)
        raise ConfigError(_naming_variables(source, f"{source}: {exc}")) from exc
    except TypeError as exc:
        raise ConfigError(_naming_variables(source, f"{source}: {exc}")) from None
    builds = _kind(kind).builds
    if builds is not None and not callable(getattr(built, builds, None)):
        raise ConfigError(f"{source}: field '_target_': {spec['_target_']!r} built a {type(built).__name__}, "
                          f"which has no {builds}() method")
    return built


def named_configs(kind: str) -> list[str]:
    """The names of the configs of ``kind`` (the current folder's ``configs/<kind>/`` and hopkit's), sorted."""
    return sorted({p.stem for d in config_dirs(kind) if d.exists() for p in d.glob("*.yaml")})


def named_config_path(kind: str, name: str) -> Path:
    """The file of the named config ``name`` of ``kind`` (``llm``, ``retrieval``)."""
    candidate = Path(name)
    if candidate.suffix in {".yaml", ".yml"} and candidate.exists():
        return candidate
    for directory in config_dirs(kind):
        path = directory / f"{name}.yaml"
        if path.exists():
            return path
    raise UnknownNameError(f"{kind} config", name, named_configs(kind))


def load_named(kind: str, name: str, **injected: Any) -> Any:
    """Instantiate the named config ``configs/<kind>/<name>.yaml``."""
    path = named_config_path(kind, name)
    return instantiate(load_yaml(path), str(path), kind=kind, **injected)


def named_spec(kind: str, name: str) -> dict[str, Any]:
    """The options of a named config, for run hashes (an LLM may be an ``hf://`` name, see :func:`load_llm`)."""
    if kind == "llm":
        return _llm_spec(name)[0]
    return load_yaml(named_config_path(kind, name))


def _llm_spec(name: str) -> tuple[dict[str, Any], str]:
    """The config of the LLM ``name`` and its source for messages: the file, or the ``hf://`` name."""
    from hopkit.llm.hub import hub_llm_spec, is_hub_uri

    if is_hub_uri(name):
        return hub_llm_spec(name), name
    path = named_config_path("llm", name)
    return load_yaml(path), str(path)


def load_llm(name: str) -> Any:
    """The LLM of the named config ``configs/llm/<name>.yaml``, or of a GGUF file on the Hub.

    Besides the backend's own options, the config may say ``cache: true`` to keep every
    completion in an on-disk cache (``$HOPKIT_HOME/llm-cache.sqlite``) keyed by model,
    prompt and parameters, so a rerun with the same prompts costs no model call.

    ``name`` may also be ``hf://OWNER/NAME[@REVISION]/FILE.gguf``: that file on the Hugging
    Face Hub, downloaded once (:mod:`hopkit.llm.hub`) and loaded with llama.cpp's defaults,
    as the config ``{_target_: hopkit.llm.llama_cpp.LlamaCppLLM.load, model_path: NAME}``.

    Raises:
        UnknownNameError: no config of that name.
        ConfigError: the config is invalid, or a malformed ``hf://`` name.
        DownloadError: the ``hf://`` file cannot be downloaded (the message says why).
    """
    from hopkit.llm.cache import CachedLLM

    spec, path = _llm_spec(name)
    cache = spec.pop("cache", False)
    if not isinstance(cache, bool):
        raise ConfigError(f"{path}: field 'cache' must be true or false, got {cache!r}")
    llm = instantiate(spec, path, kind="llm")
    return CachedLLM(llm, environment.llm_cache_path()) if cache else llm
