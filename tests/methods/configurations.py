"""Every configuration a method's options allow, enumerated from its options dataclass.

An option whose values are a closed set is enumerated: a ``Literal`` (ALCE's ``reader``), a ``bool``, an
``Enum``, a ``None`` allowed beside such a set, a value named by :func:`hopkit.options.choices` (a search
agent's template family, DRAGIN's exemplar set), and a nested options dataclass (a reader's ``mode`` and
``format``; the few-shot demonstrations, HotpotQA's, with each family), whose own configurations are its
values. An open option (a number, a free text) keeps its
default. The configurations are the defaults, then rows chosen so that every value of every option, and
every pair of values of two options, is in at least one of them (all-pairs: MIGRES's seven switches and
two sets would be 768 full combinations, and 15 rows cover every pair); so a new option value, or a new
option, is run by the tests that take these without a line changed.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from typing import Annotated, Any, Literal, Union

from hopkit.errors import ConfigError
from hopkit.methods.demonstrations import DemonstrationSpec
from hopkit.options import option_choices, parameter_types


def option_values(hint: Any, item: dataclasses.Field[Any]) -> list[Any] | None:
    """The values an option of annotation ``hint`` can take, or None for an open one."""
    declared = option_choices(item)
    if declared is not None:
        return declared
    return _values_of(hint)


def _values_of(hint: Any) -> list[Any] | None:
    origin = typing.get_origin(hint)
    if origin is Annotated:
        return _values_of(typing.get_args(hint)[0])
    if origin is Literal:
        return list(typing.get_args(hint))
    if origin in (Union, types.UnionType):
        members = typing.get_args(hint)
        values = [_values_of(member) for member in members if member is not type(None)]
        if any(found is None for found in values):
            return None
        return [*(None for member in members if member is type(None)), *(v for found in values for v in found)]
    if hint is bool:
        return [False, True]
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return list(hint)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return [_instance(hint, row) for row in configurations(hint)] or None
    return None


# Options classes with a field no default fills, and the value the configurations give it: the few-shot
# configurations of the methods with demonstrations read HotpotQA's (the fuzz has no dataset of its own).
REQUIRED: dict[type, dict[str, Any]] = {DemonstrationSpec: {"dataset": "hotpotqa"}}


def _instance(options: type, values: dict[str, Any]) -> Any:
    return options(**{**REQUIRED.get(options, {}), **values})


def _default(item: dataclasses.Field[Any]) -> Any:
    if item.default_factory is not dataclasses.MISSING:
        return item.default_factory()
    return item.default


def configurations(options: type) -> list[dict[str, Any]]:
    """The configurations of the options dataclass ``options``, as keyword arguments (defaults first;
    combinations its constructor refuses are left out)."""
    hints = parameter_types(options)
    names: list[str] = []
    values: list[list[Any]] = []
    for item in dataclasses.fields(options):
        if item.name not in hints or not item.init:
            continue
        found = option_values(hints[item.name], item)
        if not found:
            continue
        default = _default(item) if item.default is not dataclasses.MISSING or \
            item.default_factory is not dataclasses.MISSING else found[0]
        ordered = [default, *(value for value in found if value != default)]
        if len(ordered) > 1:
            names.append(item.name)
            values.append(ordered)
    rows = []
    for row in all_pairs([len(choice) for choice in values]):
        kwargs = {name: values[index][value] for index, (name, value) in enumerate(zip(names, row)) if value}
        try:
            _instance(options, kwargs)
        except (ConfigError, TypeError):  # refused, or an options class with a value no default gives
            continue
        rows.append(kwargs)
    return rows


def all_pairs(sizes: list[int]) -> list[tuple[int, ...]]:
    """Rows of value indexes (0: the default) in which every value of each position, and every pair of
    values of two positions, appears: all zeros first, then greedily the row covering most new pairs."""
    count = len(sizes)
    first = tuple(0 for _ in sizes)
    if count < 2:
        return [first] + [(value,) for size in sizes for value in range(1, size)]
    uncovered = {(i, a, j, b) for i in range(count) for j in range(i + 1, count)
                 for a in range(sizes[i]) for b in range(sizes[j])}
    rows: list[tuple[int, ...]] = []

    def cover(row: tuple[int, ...]) -> None:
        rows.append(row)
        uncovered.difference_update((i, row[i], j, row[j]) for i in range(count) for j in range(i + 1, count))

    cover(first)
    while uncovered:
        i, a, j, b = min(uncovered)
        chosen: list[int | None] = [None] * count
        chosen[i], chosen[j] = a, b
        for position in range(count):
            if chosen[position] is not None:
                continue

            def gain(value: int, position: int = position) -> int:
                return sum(1 for other, set_value in enumerate(chosen) if set_value is not None and
                           (min(position, other), value if position < other else set_value, max(position, other),
                            set_value if position < other else value) in uncovered)

            chosen[position] = max(range(sizes[position]), key=lambda value: (gain(value), -value))
        cover(tuple(value or 0 for value in chosen))
    return rows


def describe(values: dict[str, Any]) -> str:
    """A configuration in a test id: ``reader=rerank,unsupported_answer=first`` ("defaults" for none)."""
    if not values:
        return "defaults"
    return ",".join(f"{name}={_short(value)}" for name, value in values.items())


def _short(value: Any) -> str:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changed = {item.name: getattr(value, item.name) for item in dataclasses.fields(value)
                   if getattr(value, item.name) != _default(item)}
        return "(" + (describe(changed) if changed else "defaults") + ")"
    return str(value.value if isinstance(value, enum.Enum) else value)
