"""List-like model responses: ``["q1", "q2"]``, numbered or bulleted lines, or plain lines."""

from __future__ import annotations

import re
from typing import Literal

from hopkit.errors import ParseError
from hopkit.parsing.scanner import QUOTES, Bare, Quoted, Scanned, scan_list

MAX_STARTS = 8
_MARKED_LINE = re.compile(
    r"^[ \t]*(?:[-*\u2022+]|(?:(?:query|question|q)[ \t]*)?\(?\d{1,3}[.):])[ \t]+(.*\S)", re.IGNORECASE | re.MULTILINE)


def parse_list(text: str, *, split_on: Literal["lines", "commas"] | None = None) -> list[str]:
    """The items of a list-like response, in order, empty ones dropped.

    Read, in this order of preference, as the first bracketed list with a quoted item,
    numbered (``1.``, ``2)``, ``Query 1:``) or bulleted (``-``, ``*``) lines, the first
    bracketed list of bare words, an empty ``[]``, and, when ``split_on`` says so, the
    text split on lines or commas.

    Raises:
        ParseError: no list is found.
    """
    expected = "a list" + (f" (or {split_on}-separated text)" if split_on else "")
    quoted, unquoted, empty = _bracketed(text, expected)
    if quoted:
        return quoted
    marked = [item for item in (_unquote(match.group(1)) for match in _MARKED_LINE.finditer(text)) if item]
    if marked:
        return marked
    if unquoted:
        return unquoted
    if empty:
        return []
    if split_on is not None:
        pieces = text.split("\n") if split_on == "lines" else re.split(r"[,\n]", text)
        items = [item for item in (_unquote(piece.strip(" \t[]")) for piece in pieces) if item]
        if items:
            return items
    raise ParseError(expected, text, "no bracketed list and no numbered or bulleted lines")


def _bracketed(text: str, expected: str) -> tuple[list[str] | None, list[str] | None, bool]:
    """The first list with a quoted item, the first list without, and whether a closed ``[]`` was seen."""
    quoted: list[str] | None = None
    unquoted: list[str] | None = None
    empty = False
    for start in [i for i, ch in enumerate(text) if ch == "["][:MAX_STARTS]:
        try:
            scanned, closed = scan_list(text, start, expected)
        except ParseError:
            continue
        leaves = _leaves(scanned)
        items = [leaf.text for leaf in leaves if leaf.text.strip()]
        if items and any(isinstance(leaf, Quoted) for leaf in leaves):
            quoted = items
            break
        if items:
            unquoted = unquoted or items
        empty = empty or (closed and not items)
    return quoted, unquoted, empty


def _leaves(scanned: list[Scanned] | dict[str, Scanned]) -> list[Quoted | Bare]:
    """The strings and tokens in a list, nested lists and dicts (their values) included."""
    items = scanned.values() if isinstance(scanned, dict) else scanned
    return [leaf for item in items for leaf in (_leaves(item) if isinstance(item, (list, dict)) else [item])]


def _unquote(item: str) -> str:
    item = item.strip().rstrip(",").strip()
    if len(item) >= 2 and item[0] in QUOTES and item[-1] == QUOTES[item[0]]:
        item = item[1:-1].strip()
    return item
