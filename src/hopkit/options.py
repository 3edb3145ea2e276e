"""Option types with their ranges, and the one check every option goes through.

An option's type and range are declared once, as its annotation on the config
dataclass or constructor (``k: PositiveInt = 5``). :func:`check_value` validates a
value against such an annotation with pydantic in strict mode, so an integer option
takes neither ``2.5`` nor ``true`` nor ``"5"``, and on failure says in words what was
expected::

    field 'k': expected an integer >= 1, got 2.5

:func:`check_fields` runs it over every field of a config dataclass (from its
``__post_init__``), so Python callers get the same checks as YAML files.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import functools
import types
import typing
from pathlib import Path
from typing import Annotated, Any, Literal, Union

import annotated_types
from pydantic import ConfigDict, TypeAdapter, ValidationError
from pydantic.errors import PydanticSchemaGenerationError, PydanticUserError

from hopkit.errors import ConfigError

PositiveInt = Annotated[int, annotated_types.Ge(1)]
NonNegativeInt = Annotated[int, annotated_types.Ge(0)]
PositiveFloat = Annotated[float, annotated_types.Gt(0)]
NonNegativeFloat = Annotated[float, annotated_types.Ge(0)]
NonEmptyStr = Annotated[str, annotated_types.MinLen(1)]

# Strict: no coercion (2.5 is not an int, "5" is not an int, true is not an int);
# nan and infinity are not numbers an option can take.
_STRICT = ConfigDict(strict=True, allow_inf_nan=False, arbitrary_types_allowed=True)
_BOUNDS = (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<"))
_NAMES: dict[Any, str] = {int: "an integer", float: "a number", str: "a string", bool: "true or false",
                          type(None): "null", Path: "a path", Any: "any value"}
_SEQUENCES = (list, tuple, collections.abc.Sequence)
_MAPPINGS = (dict, collections.abc.Mapping)


def expected(hint: Any) -> str:
    """What a value of type ``hint`` looks like, in words (``"an integer >= 1 or null"``)."""
    origin = typing.get_origin(hint)
    if origin is Annotated:
        base, *metadata = typing.get_args(hint)
        if base is str and any(getattr(m, "min_length", 0) == 1 for m in metadata):
            return "a non-empty string"
        bounds = [f"{symbol} {getattr(m, name)}" for m in metadata for name, symbol in _BOUNDS
                  if getattr(m, name, None) is not None]
        return " ".join([expected(base), " and ".join(bounds)]) if bounds else expected(base)
    if origin is Literal:
        return "one of " + ", ".join(repr(choice) for choice in typing.get_args(hint))
    if origin in (Union, types.UnionType):
        return " or ".join(expected(member) for member in typing.get_args(hint))
    if origin in _MAPPINGS:
        return "a mapping"
    if origin in _SEQUENCES:
        return "a list"
    if origin is collections.abc.Callable:
        return "a function"
    if hint in _NAMES:
        return _NAMES[hint]
    name = str(getattr(hint, "__name__", hint))
    return f"{'an' if name[:1] in set('AEIOUaeiou') else 'a'} {name}"


def shown(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, for error messages."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _build_adapter(hint: Any) -> TypeAdapter[Any] | None:
    try:
        return TypeAdapter(hint, config=_STRICT)
    except PydanticUserError:  # a dataclass or model: it carries its own config
        return TypeAdapter(hint)
    except PydanticSchemaGenerationError:  # not a type pydantic understands: the constructor checks it
        return None


@functools.lru_cache(maxsize=512)
def _cached_adapter(hint: Any) -> TypeAdapter[Any] | None:
    return _build_adapter(hint)


def _adapter(hint: Any) -> TypeAdapter[Any] | None:
    try:
        return _cached_adapter(hint)
    except TypeError:  # an unhashable annotation
        return _build_adapter(hint)


def check_value(value: Any, hint: Any, where: str) -> None:
    """Check ``value`` against the annotation ``hint``, strictly.

    Args:
        value: the option's value.
        hint: its annotation, e.g. ``PositiveInt`` or ``str | None``.
        where: what to name in the message, e.g. ``"field 'k'"``.

    Raises:
        ConfigError: ``"<where>: expected <what hint allows>, got <value>"``.
    """
    adapter = _adapter(hint)
    if adapter is None:
        return
    try:
        adapter.validate_python(value, strict=True)
    except ValidationError:
        raise ConfigError(f"{where}: expected {expected(hint)}, got {shown(value)}") from None


def check_fields(config: Any, label: str) -> None:
    """Check every field of the dataclass instance ``config`` against its annotation.

    Args:
        config: a dataclass instance (call this from its ``__post_init__``).
        label: how its fields are named in messages, e.g. ``"field"`` or ``"IRCoT option"``.

    Raises:
        ConfigError: ``"<label> '<field>': expected ..., got ..."`` for the first wrong field.
    """
    hints = parameter_types(type(config))
    for item in dataclasses.fields(config):
        if item.name in hints:
            check_value(getattr(config, item.name), hints[item.name], f"{label} {item.name!r}")


def check_arguments(function: Any, label: str, **values: Any) -> None:
    """Check arguments a constructor or function was given against its own annotations.

    Args:
        function: the function (``BM25RetrievalPipeline.__init__``) whose parameters these are.
        label: how they are named in messages, e.g. ``"BM25 option"``.
        values: the arguments to check, by parameter name.

    Raises:
        ConfigError: ``"<label> '<name>': expected ..., got ..."`` for the first wrong one.
    """
    hints = parameter_types(function)
    for name, value in values.items():
        if name in hints:
            check_value(value, hints[name], f"{label} {name!r}")


_TYPES: dict[Any, dict[str, Any]] = {}  # parameter_types() by target (classes, functions: few)


def parameter_types(target: Any) -> dict[str, Any]:
    """The annotations of the parameters ``target`` (class, classmethod or function) takes.

    A dataclass's are its fields'. Empty when they cannot be resolved (the target's own
    checks then apply alone).
    """
    try:
        return _TYPES[target]
    except (KeyError, TypeError):  # not seen yet, or unhashable
        pass
    types_ = _resolve_types(target)
    try:
        _TYPES[target] = types_
    except TypeError:
        pass
    return types_


def _resolve_types(target: Any) -> dict[str, Any]:
    if isinstance(target, type):
        # a dataclass's fields carry the annotations; another class's are on its __init__
        owner: Any = target if dataclasses.is_dataclass(target) else getattr(target, "__init__")  # noqa: B009
    else:
        owner = getattr(target, "__func__", target)
    try:
        return typing.get_type_hints(owner, include_extras=True)
    except (NameError, TypeError, AttributeError):
        return {}


# Field metadata of an option added after its method's runs existed: left out of the run's
# identity while it has its default, so those runs still resume (their hash is unchanged).
ADDED_AFTER_FIRST_RUNS = {"run_identity": "when_not_default"}


def refuse_top_k(top_k: int | None, method: str, reason: str) -> None:
    """``top_k`` given to ``method``, which has no K (``reason``: why), is refused: it would change nothing,
    and the run's identity would not change either. The one check of ``top_k`` for every door it has (the
    facade's constructor, a YAML config's field, ``run(top_k=)``, ``--top-k``).

    Raises:
        ConfigError: ``top_k`` is given.
    """
    if top_k is not None:
        raise ConfigError(f"top_k ({top_k}) does not apply to {method}: {reason}; leave out --top-k / top_k")


def fixed_after_runs(before: Any) -> dict[str, Any]:
    """Field metadata of an option that fixes a departure from the authors' method after runs existed:
    its default is the fixed (faithful) behaviour, and the value ``before`` (what those runs did) is left
    out of the run's identity, so a config that pins ``before`` still resumes the saved runs, and a run
    with the fix never shares their id."""
    return {"run_identity": "when_not", "identity_omits": before}


def choices(values: collections.abc.Callable[[], collections.abc.Iterable[Any]],
            **metadata: Any) -> dict[str, Any]:
    """Field metadata of an option that names one of a set its type does not spell (a shipped template's
    family, an exemplar set): ``values()`` lists them, so tools that go through every configuration (the
    hostile-reply fuzz) take each; ``metadata`` is the field's other metadata."""
    return {**metadata, "choices": values}


def option_choices(item: dataclasses.Field[Any]) -> list[Any] | None:
    """The values :func:`choices` declared for a field, or None."""
    values = item.metadata.get("choices")
    return None if values is None else list(values())


def run_options(config: Any) -> dict[str, Any]:
    """``dataclasses.asdict(config)``, without the later-added options at their defaults (nested too): the
    options as a run's identity holds them."""
    return _option_values(config, omit=True)


def every_option(config: Any) -> dict[str, Any]:
    """``dataclasses.asdict(config)`` as plain values, every option kept (nested too): what rebuilds the same
    config, an option pinned to the value a run's identity leaves out included."""
    return _option_values(config, omit=False)


def _option_values(config: Any, *, omit: bool) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for item in dataclasses.fields(config):
        value = getattr(config, item.name)
        if omit and _omitted_from_identity(item, value):
            continue
        values[item.name] = _option_values(value, omit=omit) if dataclasses.is_dataclass(value) else _plain(value)
    return values


def _omitted_from_identity(item: dataclasses.Field[Any], value: Any) -> bool:
    rule = item.metadata.get("run_identity")
    if rule == "when_not_default":
        return bool(value == _default_of(item))
    if rule == "when_not":
        return bool(value == item.metadata["identity_omits"])
    return False


def _default_of(item: dataclasses.Field[Any]) -> Any:
    if item.default_factory is not dataclasses.MISSING:
        return item.default_factory()
    return item.default


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value
