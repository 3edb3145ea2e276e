"""Dict-like responses read straight into a dataclass, its field types giving the kinds."""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any, TypeVar

from hopkit.parsing.dicts import parse_dict
from hopkit.parsing.values import FieldKind

Record = TypeVar("Record")

KIND_OF_TYPE: dict[Any, FieldKind] = {str: "str", int: "int", float: "float", bool: "bool",
                                      list[str]: "list[str]", list[int]: "list[int]"}


def parse_record(text: str, record: type[Record]) -> Record:
    """A ``record`` dataclass filled from a dict-like response (see :func:`parse_dict`).

    Fields typed ``str``, ``int``, ``float``, ``bool``, ``list[str]`` or ``list[int]``
    are read as that kind; a field with a default may be absent (it keeps its default),
    a field typed ``X | None`` may be absent or null (it is None).

    Raises:
        ParseError: a required field is absent or null, or a value is not of its kind.
        TypeError: ``record`` is not a dataclass or has a field of another type.
    """
    if not (dataclasses.is_dataclass(record) and isinstance(record, type)):
        raise TypeError(f"{record!r} is not a dataclass")
    hints = typing.get_type_hints(record)
    kinds: dict[str, FieldKind] = {}
    nullable: set[str] = set()
    defaulted: set[str] = set()
    for field in dataclasses.fields(record):
        hint, may_be_none = _strip_none(hints[field.name])
        if hint not in KIND_OF_TYPE:
            raise TypeError(f"{record.__name__}.{field.name} is typed {hint!r}; parseable types: "
                            "str, int, float, bool, list[str], list[int] (or any of them | None)")
        kinds[field.name] = KIND_OF_TYPE[hint]
        if may_be_none:
            nullable.add(field.name)
        if field.default is not dataclasses.MISSING or field.default_factory is not dataclasses.MISSING:
            defaulted.add(field.name)
    values = parse_dict(text, kinds, optional=nullable | defaulted)
    return record(**{name: value for name, value in values.items() if value is not None or name not in defaulted})


def _strip_none(hint: Any) -> tuple[Any, bool]:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        rest = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        if len(rest) == 1 and len(rest) < len(typing.get_args(hint)):
            return rest[0], True
    return hint, False
