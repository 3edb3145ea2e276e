"""Text from a store or a file, made safe to print on a terminal, and names a person can tell apart.

A run's name, a dataset's name or an answer may come from anyone (an imported file, a
model): printed as it is, an escape sequence in it (``\\x1b[2J``) would clear or rewrite
the user's terminal, a bidirectional override would show other text than is there, and a
zero-width or non-breaking space would make two different names look the same.
"""

from __future__ import annotations

import unicodedata
from typing import Iterable

# Controls, format characters (zero-width spaces and joiners, bidirectional marks, overrides and isolates,
# the byte-order mark), surrogates, private-use and unassigned code points, and line or paragraph separators.
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def _shown_as_escape(char: str) -> bool:
    category = unicodedata.category(char)
    return category in _INVISIBLE_CATEGORIES or (category == "Zs" and char != " ")


def _escape(char: str) -> str:
    return char.encode("unicode_escape", "backslashreplace").decode("ascii") if char != "\\" else char


def printable(text: str) -> str:
    """``text`` with each control, invisible or space-like character other than the space written as an
    escape (``\\x1b``, ``\\u202e``, ``\\u200b``, ``\\xa0``), so it prints as what it is; other text is
    unchanged."""
    if text.isascii() and text.isprintable():
        return text
    return "".join(_escape(char) if _shown_as_escape(char) else char for char in text)


def name_problem(name: str) -> str:
    """Why ``name`` cannot be given to a new run or dataset ("" when it can): a person could not tell it
    from another name, since it starts or ends with a space or holds a character that prints as nothing
    (a control, a zero-width space, a bidirectional override, a non-breaking space)."""
    if name != name.strip():
        why = "starts or ends with a space"
    else:
        hidden = sorted({printable(char) for char in name if _shown_as_escape(char)})
        if not hidden:
            return ""
        why = f"holds characters that print as nothing or as a space: {', '.join(hidden)}"
    return (f"{printable(name)!r} {why}; a person reading a table could not tell it from another name: choose "
            "one without them")


def lookalike_warnings(kind: str, name: str, existing: Iterable[str]) -> list[str]:
    """A warning for each name of ``existing`` that differs from ``name`` only in case, width or
    compatibility forms (``HotpotQA``, ``ｈｏｔｐｏｔｑａ``, ``hotpotqa``): a person reading a table would take
    one for the other.

    Args:
        kind: what the names name ("dataset", "run").
    """
    key = unicodedata.normalize("NFKC", name).casefold()
    return [f"the {kind} name {printable(name)!r} looks like the stored {kind} {printable(other)!r} (they differ "
            f"only in case, width or compatibility forms)"
            for other in sorted(set(existing))
            if other != name and unicodedata.normalize("NFKC", other).casefold() == key]
