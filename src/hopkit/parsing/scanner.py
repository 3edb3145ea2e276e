"""A scanner for the JSON- and Python-looking literals models write: it reads them, never evaluates.

Tolerated: single, double or curly quotes; unescaped quotes inside a string (a quote
closes the string only when a comma, colon, bracket, line end or another quote follows);
unquoted keys and values (an unquoted value runs over commas up to the next key, and
``[1], [3]`` is one list); missing commas between members; a missing closing brace or
bracket at the end of the text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, TypeAlias

from hopkit.errors import ParseError

MAX_DEPTH = 16
QUOTES = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019"}
_SPACE = " \t\r\n"
_AFTER_STRING = frozenset(",:}]\n\r")
_VALUE_END = frozenset(",}]\n")
_KEY_END = frozenset(":,{}[]\n") | frozenset(QUOTES)
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "0": "\0",
                   "/": "/", "\\": "\\", "'": "'", '"': '"'}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}


@dataclass(frozen=True)
class Quoted:
    """A string the model put in quotes, its escapes decoded."""

    text: str


@dataclass(frozen=True)
class Bare:
    """An unquoted token (a number, true/false/null, or words), stripped."""

    text: str


Scanned: TypeAlias = "Quoted | Bare | list[Scanned] | dict[str, Scanned]"
Members: TypeAlias = "list[tuple[str, Scanned]]"


def scan_members(text: str, start: int, expected: str) -> Members:
    """The ``key: value`` pairs from ``start`` (just after a ``{``, or at a first key) to the dict's end.

    Raises:
        ParseError: a string is not closed, or the nesting is deeper than ``MAX_DEPTH``.
    """
    return _Scanner(text, start, expected).members(1)


def scan_list(text: str, start: int, expected: str) -> tuple[list[Scanned], bool]:
    """The items of the list opening at ``text[start] == "["``, and whether its ``]`` was found.

    Raises:
        ParseError: a string is not closed, or the nesting is deeper than ``MAX_DEPTH``.
    """
    scanner = _Scanner(text, start + 1, expected)
    items = scanner.items(1)
    return items, scanner.closed


def _opens_list(char: str) -> bool:
    return char == "["


def _opens_words(char: str) -> bool:
    return char not in _KEY_END and char != "\r"


def decode_escapes(raw: str) -> str:
    """``raw`` with JSON and Python string escapes decoded; unknown escapes are kept as written."""
    if "\\" not in raw:
        return raw
    out: list[str] = []
    i, n = 0, len(raw)
    while i < n:
        ch = raw[i]
        if ch != "\\" or i + 1 == n:
            out.append(ch)
            i += 1
            continue
        code = raw[i + 1]
        if code in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[code])
            i += 2
        elif code in _HEX_ESCAPES and _is_hex(raw[i + 2:i + 2 + _HEX_ESCAPES[code]], _HEX_ESCAPES[code]):
            width = _HEX_ESCAPES[code]
            point = int(raw[i + 2:i + 2 + width], 16)
            out.append(chr(point) if point <= 0x10FFFF else "\ufffd")
            i += 2 + width
        else:
            out.append(raw[i:i + 2])
            i += 2
    return _join_surrogates("".join(out))


def _is_hex(digits: str, width: int) -> bool:
    return len(digits) == width and all(c in "0123456789abcdefABCDEF" for c in digits)


def _join_surrogates(text: str) -> str:
    if not any("\ud800" <= c <= "\udfff" for c in text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


class _Scanner:
    def __init__(self, text: str, pos: int, expected: str) -> None:
        self.text = text
        self.pos = pos
        self.expected = expected
        self.closed = False

    def fail(self, reason: str) -> ParseError:
        return ParseError(self.expected, self.text, f"{reason} at character {self.pos}")

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in _SPACE:
            self.pos += 1

    def value(self, depth: int) -> Scanned:
        if depth > MAX_DEPTH:
            raise self.fail(f"nesting deeper than {MAX_DEPTH}")
        self.skip_space()
        first = self.peek()
        if first == "{":
            self.pos += 1
            nested: dict[str, Scanned] = {}
            for key, value in self.members(depth + 1):
                nested.setdefault(key, value)
            return nested
        if first == "[":
            self.pos += 1
            return self.items(depth + 1)
        if first in QUOTES:
            return Quoted(self.string())
        return Bare(self.run_until(_VALUE_END))

    def member_value(self, depth: int) -> Scanned:
        """A member's value; ``a, b`` and ``[1], [3]`` up to the next key are one value."""
        self.skip_space()
        first = self.peek()
        if first in QUOTES or first in ("{", "["):
            value = self.value(depth)
            while isinstance(value, list) and self.continues(_opens_list):
                self.pos += 1
                value.extend(self.items(depth + 1))
            return value
        start = self.pos
        self.run_until(_VALUE_END)
        while self.continues(_opens_words):
            self.run_until(_VALUE_END)
        return Bare(self.text[start:self.pos].strip())

    def continues(self, opens_more: Callable[[str], bool]) -> bool:
        """Step over a comma when what follows it is more of the same value, not a new key."""
        if self.peek() != ",":
            return False
        after = self.pos + 1
        while after < len(self.text) and self.text[after] in " \t":
            after += 1
        if after == len(self.text) or not opens_more(self.text[after]):
            return False
        end = after
        while end < len(self.text) and self.text[end] not in _KEY_END:
            end += 1
        if self.text[end:end + 1] == ":":
            return False
        self.pos = after
        return True

    def members(self, depth: int) -> Members:
        pairs: Members = []
        while True:
            self.skip_space()
            first = self.peek()
            if first in ("", "}"):
                self.pos += len(first)
                return pairs
            if first == ",":
                self.pos += 1
                continue
            start = self.pos
            key = self.string() if first in QUOTES else self.run_until(_KEY_END)
            self.skip_space()
            if self.peek() != ":":
                self.pos = start
                return pairs
            self.pos += 1
            pairs.append((key, self.member_value(depth)))

    def items(self, depth: int) -> list[Scanned]:
        found: list[Scanned] = []
        while True:
            self.skip_space()
            first = self.peek()
            if first in ("", "]"):
                self.pos += len(first)
                self.closed = first == "]"
                return found
            if first == ",":
                self.pos += 1
                continue
            start = self.pos
            found.append(self.value(depth))
            if self.pos == start:
                raise self.fail(f"unexpected {first!r} in a list")

    def run_until(self, ends: frozenset[str]) -> str:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in ends:
            self.pos += 1
        return self.text[start:self.pos].strip()

    def string(self) -> str:
        text, n = self.text, len(self.text)
        opening = text[self.pos]
        closing = QUOTES[opening]
        start = i = self.pos + 1
        while i < n:
            ch = text[i]
            if ch == "\\":
                i += 2
                continue
            if ch == closing and self.closes_at(i, opening):
                self.pos = i + 1
                return decode_escapes(text[start:i])
            i += 1
        raise self.fail(f"a string opened with {opening} is never closed")

    def closes_at(self, i: int, opening: str) -> bool:
        text, j = self.text, i + 1
        while j < len(text) and text[j] in " \t":
            j += 1
        return j == len(text) or text[j] in _AFTER_STRING or (j > i + 1 and text[j] == opening)
