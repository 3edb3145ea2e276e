"""Typed step payloads: what a kind of step holds in its ``input``, ``output`` and ``extra``.

A method declares one :class:`Payload` per kind of step it records, a frozen dataclass in
its package's ``steps.py``; each field says where it sits in the step's JSON with
:func:`at` (``input``, ``output``, or a key of either), every other field being the key of
``extra`` of its name. The recorder builds the payload and :func:`record` stores it through
:func:`~hopkit.traces.record_step`, so the stored JSON is the one a reader has always seen;
analysis reads it back with ``step.payload(IRCoTRetrieve)`` or :func:`payload_of`::

    @dataclass(frozen=True)
    class Retrieve(Payload):
        kind: ClassVar[str] = "retrieve"
        query: str = at("input")
        kept: tuple[int, ...] = at("output", "kept")
        k: int = 0                                  # extra["k"]

Nested values are :class:`Record` s (dataclasses whose fields are the keys of a JSON
object), tuples, mappings, literals and unions of them. Reading tolerates an older trace
(a missing key with a default takes the default; a key the type does not declare, such as
``extra["prompts"]``, is ignored) and raises :class:`TraceError` naming the step and the
field when a value has the wrong type.
"""

from __future__ import annotations

import collections.abc
import functools
import types
import typing
from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from typing import Any, ClassVar, Literal, Mapping, Sequence, TypeVar, Union

from hopkit.traces.collect import record_step
from hopkit.traces.records import Step, TraceError

__all__ = ["Payload", "Record", "at", "decode", "encode", "json_fields", "optional", "payload_of", "record"]

P = TypeVar("P", bound="Payload")
R = TypeVar("R", bound="Record")

_PLACES = ("input", "output", "extra")
_MAPPINGS = (dict, Mapping, collections.abc.Mapping)


def at(place: str, key: str | None = None, *, default: Any = MISSING, default_factory: Any = MISSING,
       omit_none: bool = False) -> Any:
    """A payload field stored at ``place`` ("input", "output" or "extra"), under ``key`` when given
    (else the whole of it); ``omit_none``: a None value is left out of the JSON (an optional key)."""
    if place not in _PLACES:
        raise ValueError(f"a payload field sits in one of {', '.join(_PLACES)}, not {place!r}")
    return field(default=default, default_factory=default_factory,
                 metadata={"at": (place, key), "omit_none": omit_none})


def optional(default: Any = None) -> Any:
    """A field of a record (or an extra key) left out of the JSON when None."""
    return field(default=default, metadata={"omit_none": True})


@dataclass(frozen=True)
class Record:
    """A JSON object with typed keys (its fields), nested in a payload."""

    @classmethod
    def from_json(cls: type[R], data: Any, where: str = "record") -> R:
        """Read the object; raises :class:`TraceError` naming ``where`` and the key on bad data."""
        value: R = decode(data, cls, where)
        return value

    def to_json(self) -> dict[str, Any]:
        """The object as JSON values (keys in field order)."""
        encoded: dict[str, Any] = encode(self)
        return encoded


@dataclass(frozen=True)
class Payload:
    """The typed content of one kind of step (see the module docstring)."""

    kind: ClassVar[str]

    @classmethod
    def from_step(cls: type[P], step: Step) -> P:
        """The payload of ``step``.

        Raises:
            TraceError: the step is of another kind, or a field is missing or has the wrong type
                (the message names the step and the field).
        """
        where = f"step {step.id} ({step.kind})"
        if step.kind != cls.kind:
            raise TraceError(f"{where}: a {cls.__name__} is read from a {cls.kind!r} step")
        hints = _hints(cls)
        values: dict[str, Any] = {}
        for item in fields(cls):
            place, key = _place(item)
            source = getattr(step, place)
            path = f"{where}: {place}" + (f".{key}" if key is not None else "")
            if key is None:
                values[item.name] = decode(source, hints[item.name], path)
                continue
            if not isinstance(source, Mapping):
                raise TraceError(f"{where}: {place} must be an object holding {key!r}, got {source!r}")
            if key in source:
                values[item.name] = decode(source[key], hints[item.name], path)
            elif not _has_default(item):
                raise TraceError(f"{where}: {place} lacks the key {key!r} ({cls.__name__}.{item.name})")
        return cls(**values)

    def step_fields(self) -> dict[str, Any]:
        """``input``, ``output`` and ``extra`` as :func:`~hopkit.traces.record_step` takes them."""
        whole: dict[str, Any] = {}
        keyed: dict[str, dict[str, Any]] = {place: {} for place in _PLACES}
        for item in fields(self):
            place, key = _place(item)
            value = getattr(self, item.name)
            if key is None:
                whole[place] = encode(value)
            elif not (value is None and item.metadata.get("omit_none")):
                keyed[place][key] = encode(value)
        return {place: whole[place] if place in whole else (keyed[place] or None) for place in ("input", "output")} | {
            "extra": keyed["extra"]}


def record(payload: Payload, *, parent: Any = None, paragraph_ids: Sequence[int] = (),
           scores: Sequence[float] | Mapping[str, float] = (), llm_calls: int | None = None,
           hits: Sequence[Any] | None = None) -> int | None:
    """Record a step of ``payload.kind`` holding ``payload`` (the other arguments as
    :func:`~hopkit.traces.record_step` takes them).

    Args:
        hits: a retrieval's hits (each with an ``id`` and a ``score``): the step's paragraph ids and
            scores, in their order (given instead of ``paragraph_ids`` and ``scores``).

    Returns:
        The new step's id; None outside a trace block.
    """
    if hits is not None:
        if paragraph_ids or scores:
            raise TypeError("record: give hits or paragraph_ids and scores, not both")
        paragraph_ids, scores = [hit.id for hit in hits], [float(hit.score) for hit in hits]
    return record_step(payload.kind, parent=parent, paragraph_ids=paragraph_ids, scores=scores,
                       llm_calls=llm_calls, **payload.step_fields())


def payload_of(step: Step, payloads: Sequence[type[Payload]]) -> Payload | None:
    """The payload of ``step`` read as the first of ``payloads`` of its kind whose literal fields
    (``module: Literal["leaf"]``, ``failed: Literal[True]``) hold one of their values in the step;
    None when none does.

    Raises:
        TraceError: the matching payload type does not read the step (the message says which field).
    """
    for cls in payloads:
        if cls.kind == step.kind and _literals_match(cls, step):
            return cls.from_step(step)
    return None


def json_fields(cls: type[Payload] | type[Record]) -> list[tuple[str, str]]:
    """Where each field of ``cls`` sits in the JSON (``extra.k``; a record's key) and its type as the
    documentation names it (``integer``, ``list of string``), in field order."""
    hints = _hints(cls)
    rows = []
    for item in fields(cls):
        if issubclass(cls, Payload):
            place, key = _place(item)
            rows.append((place + (f".{key}" if key is not None else ""), _describe(hints[item.name])))
        else:
            rows.append((item.name, _describe(hints[item.name])))
    return rows


def encode(value: Any) -> Any:
    """``value`` as JSON values: records and payload fields become objects, tuples lists."""
    if is_dataclass(value) and not isinstance(value, type):
        return {item.name: encode(getattr(value, item.name)) for item in fields(value)
                if not (getattr(value, item.name) is None and item.metadata.get("omit_none"))}
    if isinstance(value, (tuple, list)):
        return [encode(item) for item in value]
    if isinstance(value, Mapping):
        return {key: encode(item) for key, item in value.items()}
    return value


def decode(value: Any, kind: Any, where: str) -> Any:
    """``value`` read as the type ``kind``; raises :class:`TraceError` naming ``where`` when it is not one."""
    origin = typing.get_origin(kind)
    if kind is Any:
        return value
    if kind is None or kind is type(None):
        return _expect(value is None, value, "null", where)
    if origin in (Union, types.UnionType):
        arms = typing.get_args(kind)
        for arm in sorted(arms, key=lambda arm: arm is not type(None)):
            try:
                return decode(value, arm, where)
            except TraceError:
                continue
        raise TraceError(f"{where}: expected {_describe(kind)}, got {value!r}")
    if origin is Literal:
        return _expect(value in typing.get_args(kind), value, _describe(kind), where)
    if kind is bool or kind is str:
        return _expect(isinstance(value, kind), value, "a string" if kind is str else "a boolean", where)
    if kind is int:
        return _expect(isinstance(value, int) and not isinstance(value, bool), value, "an integer", where)
    if kind is float:
        return _expect(isinstance(value, (int, float)) and not isinstance(value, bool), value, "a number", where)
    if origin is tuple:
        return _tuple(value, typing.get_args(kind), where)
    if origin in _MAPPINGS or kind in _MAPPINGS:
        args = typing.get_args(kind)
        _expect(isinstance(value, Mapping), value, "an object", where)
        return {key: decode(item, args[1] if args else Any, f"{where}.{key}") for key, item in value.items()}
    if isinstance(kind, type) and is_dataclass(kind):
        return _record(value, kind, where)
    raise TypeError(f"{where}: a payload field may not be of type {kind!r}")


def _expect(ok: bool, value: Any, expected: str, where: str) -> Any:
    if not ok:
        raise TraceError(f"{where}: expected {expected}, got {value!r}")
    return value


def _tuple(value: Any, args: tuple[Any, ...], where: str) -> tuple[Any, ...]:
    _expect(isinstance(value, (list, tuple)), value, "a list", where)
    if len(args) == 2 and args[1] is Ellipsis:
        return tuple(decode(item, args[0], f"{where}[{i}]") for i, item in enumerate(value))
    _expect(len(value) == len(args), value, f"a list of {len(args)} values", where)
    return tuple(decode(item, arg, f"{where}[{i}]") for i, (item, arg) in enumerate(zip(value, args)))


def _record(value: Any, kind: type, where: str) -> Any:
    _expect(isinstance(value, Mapping), value, "an object", where)
    hints = _hints(kind)
    values = {}
    for item in fields(kind):
        if item.name in value:
            values[item.name] = decode(value[item.name], hints[item.name], f"{where}.{item.name}")
        elif not _has_default(item):
            raise TraceError(f"{where}: the object lacks the key {item.name!r}")
    return kind(**values)


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _place(item: Any) -> tuple[str, str | None]:
    place: tuple[str, str | None] = item.metadata.get("at", ("extra", item.name))
    return place


def _has_default(item: Any) -> bool:
    return item.default is not MISSING or item.default_factory is not MISSING


def _literals_match(cls: type[Payload], step: Step) -> bool:
    hints = _hints(cls)
    for item in fields(cls):
        if typing.get_origin(hints[item.name]) is not Literal:
            continue
        place, key = _place(item)
        source = getattr(step, place)
        if key is None:
            value = source
        elif isinstance(source, Mapping) and key in source:
            value = source[key]
        else:
            return False
        if value not in typing.get_args(hints[item.name]):
            return False
    return True


def _describe(kind: Any) -> str:
    """A type as the documentation names it (``list of integer``, ``string or null``)."""
    origin = typing.get_origin(kind)
    if kind is Any:
        return "any"
    if kind is None or kind is type(None):
        return "null"
    if origin in (Union, types.UnionType):
        return " or ".join(_describe(arm) for arm in typing.get_args(kind))
    if origin is Literal:
        return " \\| ".join(f'"{arg}"' if isinstance(arg, str) else str(arg).lower() for arg in typing.get_args(kind))
    if origin is tuple:
        args = typing.get_args(kind)
        if len(args) == 2 and args[1] is Ellipsis:
            return f"list of {_describe(args[0])}"
        return "[" + ", ".join(_describe(arg) for arg in args) + "]"
    if origin in _MAPPINGS or kind in _MAPPINGS:
        args = typing.get_args(kind)
        return f"object of {_describe(args[1])}" if args else "object"
    names = {str: "string", int: "integer", float: "number", bool: "boolean"}
    if kind in names:
        return names[kind]
    if isinstance(kind, type) and is_dataclass(kind):
        return f"`{kind.__name__}`"
    return repr(kind)
