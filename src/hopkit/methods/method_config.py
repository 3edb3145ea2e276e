"""A method's config dataclass built from keyword options, as a facade, a YAML file and Adaptive-RAG's
strategies give them: a nested config (IRCoT's ``iirc``, the readers' ``reader``) from a mapping of its
fields or, where its class has a ``from_option`` class method, from that method's shorthand (``reader: cot``).
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any, Mapping, TypeVar

from hopkit.errors import ConfigError
from hopkit.options import parameter_types, shown

Config = TypeVar("Config")


def method_config(config_class: type[Config], options: Mapping[str, Any], source: str) -> Config:
    """``config_class`` built from keyword ``options`` (nested configs from mappings).

    Raises:
        ConfigError: naming ``source`` and an unknown option, or from the config's own checks.
    """
    if isinstance(options, config_class):
        return options
    known = {f.name for f in dataclasses.fields(config_class)}  # type: ignore[arg-type]
    unknown = sorted(str(name) for name in set(options) - known)
    if unknown:
        raise ConfigError(f"{source}: unknown option(s) {unknown}; known: {sorted(known)}")
    hints = parameter_types(config_class)
    values = {name: _nested(hints.get(name), value, f"{source}: option {name!r}") for name, value in options.items()}
    try:
        return config_class(**values)
    except (ConfigError, TypeError) as exc:  # TypeError: a required field left out
        raise ConfigError(f"{source}: {exc}") from None


def _nested(hint: Any, value: Any, where: str) -> Any:
    inner = config_dataclass(hint)
    if inner is None or value is None or isinstance(value, inner):  # None: the annotation's check says if it may be
        return value
    shorthand = getattr(inner, "from_option", None)
    if isinstance(value, str) and shorthand is not None:
        try:
            return shorthand(value)
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from None
    if not isinstance(value, Mapping):
        fields = ", ".join(f.name for f in dataclasses.fields(inner))
        raise ConfigError(f"{where}: expected a mapping of {fields}, got {shown(value)}")
    return method_config(inner, value, where)


def config_dataclass(hint: Any) -> type | None:
    """The config dataclass ``hint`` names (directly or as ``X | None``), if any."""
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return hint
    members = [m for m in typing.get_args(hint) if m is not type(None)]
    if len(members) == 1 and isinstance(members[0], type) and dataclasses.is_dataclass(members[0]):
        return members[0]
    return None
