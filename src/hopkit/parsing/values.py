"""Scanned values read as the kind a caller expects: "3", "three" and "3/5" as 3, "yes" as True."""

from __future__ import annotations

import re
from typing import Literal, TypeAlias, get_args

from hopkit.parsing.scanner import Bare, Quoted, Scanned

FieldKind = Literal["str", "int", "float", "bool", "list[str]", "list[int]"]
Value: TypeAlias = str | int | float | bool | list[str] | list[int]
FIELD_KINDS: tuple[str, ...] = get_args(FieldKind)

NUMBER_WORDS = {word: n for n, word in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty".split())}
NULLS = frozenset({"null", "none", "nil"})
TRUE_WORDS = frozenset({"true", "yes", "y", "1"})
FALSE_WORDS = frozenset({"false", "no", "n", "0"})
MAX_DIGITS = 18

_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?")
_WORD = re.compile(r"[^\W\d_]+")


def is_null(value: Scanned) -> bool:
    """Whether the model wrote null/None (an absent value) rather than a value."""
    return isinstance(value, Bare) and value.text.casefold() in NULLS


def coerce(value: Scanned, kind: FieldKind) -> Value:
    """``value`` read as ``kind``.

    Raises:
        ValueError: it cannot be read as ``kind`` (the message says why).
    """
    if kind == "str":
        return as_str(value)
    if kind == "int":
        return as_int(value)
    if kind == "float":
        return as_float(value)
    if kind == "bool":
        return as_bool(value)
    if kind == "list[str]":
        return [text for text in (as_str(item) for item in _flatten(value)) if text.strip()]
    if isinstance(value, (Quoted, Bare)):
        return [_checked_int(match.group()) for match in _INT.finditer(value.text)]
    return [as_int(item) for item in _flatten(value)]


def as_str(value: Scanned) -> str:
    """The text of a string or token, or of a list's items joined with ", "."""
    if isinstance(value, (Quoted, Bare)):
        return value.text
    if isinstance(value, list):
        return ", ".join(text for text in (as_str(item) for item in value) if text)
    raise ValueError("wanted text, got a dict")


def as_int(value: Scanned) -> int:
    """A whole number: "3", "3.0", "three", "3/5" or "3 out of 5" give 3."""
    text = _scalar_text(value, "a whole number").strip().casefold().rstrip(".")
    if _INT.fullmatch(text):
        return _checked_int(text)
    if _FLOAT.fullmatch(text):
        number = float(text)
        if not number.is_integer() or abs(number) >= 10 ** MAX_DIGITS:
            raise ValueError(f"{text!r} is not a whole number")
        return int(number)
    word = _WORD.match(text)
    if word and word.group() in NUMBER_WORDS:
        return NUMBER_WORDS[word.group()]
    match = _INT.search(text)
    if match is None:
        raise ValueError(f"{text!r} holds no number")
    return _checked_int(match.group())


def as_float(value: Scanned) -> float:
    """A number: "0.8", "3", "three" or "0.8 (fairly sure)"."""
    text = _scalar_text(value, "a number").strip().casefold().rstrip(".")
    word = _WORD.match(text)
    if word and word.group() in NUMBER_WORDS:
        return float(NUMBER_WORDS[word.group()])
    match = _FLOAT.search(text)
    if match is None:
        raise ValueError(f"{text!r} holds no number")
    return float(match.group())


def as_bool(value: Scanned) -> bool:
    """True for true/yes/y/1, False for false/no/n/0 (first word, any case)."""
    text = _scalar_text(value, "true or false").strip().casefold()
    first = re.match(r"\w+", text)
    word = first.group() if first else ""
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ValueError(f"{text!r} is not true/false or yes/no")


def _scalar_text(value: Scanned, wanted: str) -> str:
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, (Quoted, Bare)):
        return value.text
    raise ValueError(f"wanted {wanted}, got a {'list' if isinstance(value, list) else 'dict'}")


def _checked_int(digits: str) -> int:
    if len(digits.lstrip("+-")) > MAX_DIGITS:
        raise ValueError(f"{digits[:30]!r}... has more than {MAX_DIGITS} digits")
    return int(digits)


def _flatten(value: Scanned) -> list[Scanned]:
    if not isinstance(value, list):
        return [value]
    return [leaf for item in value for leaf in _flatten(item)]
