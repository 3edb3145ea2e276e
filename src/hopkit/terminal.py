"""Text from a store or a file, made safe to print on a terminal, and names a person can tell apart.

A run's name, a dataset's name or an answer may come from anyone (an imported file, a
model): printed as it is, an escape sequence in it (``\\x1b[2J``) would clear or rewrite
the user's terminal, a bidirectional override would show other text than is there, and a
zero-width or non-breaking space, a Hangul filler, a variation selector or an accent written
apart (``e`` + U+0301 beside ``é``) would make two different names look the same.

The same text in Markdown and CSV: :mod:`hopkit.report.escape`.
"""

from __future__ import annotations

import unicodedata
from typing import Iterable

# Controls, format characters (zero-width spaces and joiners, bidirectional marks, overrides and isolates,
# the byte-order mark), surrogates, private-use and unassigned code points, and line or paragraph separators.
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


# Unicode's Default_Ignorable_Code_Point property (DerivedCoreProperties.txt, the same ranges from Unicode 6.0 to
# 16.0; Python's unicodedata does not expose it): what a renderer shows as nothing when it has no glyph for it. Beside
# the format characters above, it holds the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), the variation selectors
# (U+180B-180F, U+FE00-FE0F, U+E0100-E01EF), the combining grapheme joiner (U+034F) and the Khmer inherent vowels.
_DEFAULT_IGNORABLE = ((0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
                      (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
                      (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
                      (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF))
# Characters that are not default-ignorable but whose glyph is blank: the braille pattern blank, the musical null
# notehead and the Khitan small script filler.
_BLANK_GLYPHS = frozenset("\u2800\U0001d159\U00016fe4")


def _default_ignorable(char: str) -> bool:
    point = ord(char)
    return any(low <= point <= high for low, high in _DEFAULT_IGNORABLE)


def _shown_as_escape(char: str) -> bool:
    category = unicodedata.category(char)
    return (category in _INVISIBLE_CATEGORIES or (category == "Zs" and char != " ") or char in _BLANK_GLYPHS
            or _default_ignorable(char))


def _written_apart(text: str) -> set[int]:
    """The positions in ``text`` that Unicode's composed form (NFC) would write otherwise: an accent after its
    letter (``e`` + U+0301), a Hangul vowel after its consonant, a singleton such as the Kelvin sign; none when
    ``text`` is composed already. Printed as escapes, such a name reads apart from its composed twin."""
    if unicodedata.is_normalized("NFC", text):
        return set()
    return {i for i, char in enumerate(text)
            if unicodedata.normalize("NFC", char) != char
            or (i and unicodedata.normalize("NFC", text[i - 1:i + 1]) != text[i - 1:i + 1])}


def _escape(char: str) -> str:
    return char.encode("unicode_escape", "backslashreplace").decode("ascii") if char != "\\" else char


def printable(text: str) -> str:
    """``text`` with each control, invisible, blank or space-like character other than the space written as an
    escape (``\\x1b``, ``\\u202e``, ``\\u200b``, ``\\xa0``, ``\\u3164``, ``\\ufe0f``), and in text that is not in
    Unicode's composed form (NFC) each character that form writes otherwise (``e\\u0301``), so it prints as what it
    is and apart from its look-alikes; other text is unchanged."""
    if text.isascii() and text.isprintable():
        return text
    apart = _written_apart(text)
    return "".join(_escape(char) if _shown_as_escape(char) or i in apart else char for i, char in enumerate(text))


def name_problem(name: str) -> str:
    """Why ``name`` cannot be given to a new run or dataset ("" when it can): a person could not tell it
    from another name, since it starts or ends with a space or holds a character that prints as nothing
    (a control, a zero-width space, a bidirectional override, a non-breaking space, any of Unicode's
    default-ignorable code points such as a Hangul filler, a variation selector or the combining grapheme
    joiner, or a blank glyph such as U+2800)."""
    if name != name.strip():
        why = "starts or ends with a space"
    else:
        hidden = sorted({printable(char) for char in name if _shown_as_escape(char)})
        if not hidden:
            return ""
        why = f"holds characters that print as nothing or as a space: {', '.join(hidden)}"
    return (f"{printable(name)!r} {why}; a person reading a table could not tell it from another name: choose "
            "one without them")


def clashing_name(name: str, existing: Iterable[str]) -> str | None:
    """The name of ``existing`` that ``name`` differs from only in how its letters are encoded: equal after
    Unicode's compatibility normalisation (NFKC: a composed ``é`` and ``e`` + U+0301, the Kelvin sign and
    ``K``, the micro sign and ``μ``, full-width or ligature letters), so the two print alike (None when none does).
    """
    key = unicodedata.normalize("NFKC", name)
    return next((other for other in sorted(set(existing))
                 if other != name and unicodedata.normalize("NFKC", other) == key), None)


def name_clash(kind: str, name: str, existing: Iterable[str]) -> str:
    """Why ``name`` cannot be given to a new ``kind`` ("run", "dataset") beside the stored names ``existing``
    ("" when it can): it is a stored name written with other code points (:func:`clashing_name`)."""
    other = clashing_name(name, existing)
    if other is None:
        return ""
    return (f"the {kind} name {printable(name)!r} is the stored {kind} {printable(other)!r} written with other "
            "Unicode code points (equal after NFKC normalisation: accents composed or apart, compatibility or "
            f"full-width forms); the two would print alike: use {printable(other)!r} itself or another name")


def lookalike_warnings(kind: str, name: str, existing: Iterable[str]) -> list[str]:
    """A warning for each name of ``existing`` that differs from ``name`` only in case (after compatibility
    forms: ``HotpotQA``, ``ＨＯＴＰＯＴＱＡ``, ``hotpotqa``): a person reading a table would take one for the
    other. Names equal after NFKC are refused instead (:func:`name_clash`).

    Args:
        kind: what the names name ("dataset", "run").
    """
    folded = unicodedata.normalize("NFKC", name)
    key = folded.casefold()
    return [f"the {kind} name {printable(name)!r} looks like the stored {kind} {printable(other)!r} (they differ "
            f"only in case, width or compatibility forms)"
            for other in sorted(set(existing))
            if other != name and unicodedata.normalize("NFKC", other) != folded
            and unicodedata.normalize("NFKC", other).casefold() == key]
