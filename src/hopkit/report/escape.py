"""Names and other text from outside (a store, an imported file, a model), written the one way each output needs.

- the terminal: :func:`hopkit.terminal.printable` (controls, invisible and blank characters as escapes);
- Markdown: :func:`markdown_cell`, for a table cell or a name inside a line of prose;
- CSV: :func:`csv_cell` (a cell a spreadsheet would run as a formula starts with ``'``).

A run named ``a|b<script>alert(1)</script>`` keeps its table row whole in Markdown, shows as those characters
(no HTML, no link, no emphasis) wherever the page is rendered, and stays text in a spreadsheet.
"""

from __future__ import annotations

from hopkit.terminal import printable

__all__ = ["csv_cell", "markdown_cell", "printable"]

# Markdown's own punctuation, written with a backslash: a cell separator (|), code spans (`), emphasis and
# strikethrough (*, ~, and _ where it can open or close one), math on GitHub ($) and the backslash itself; and ] where
# it would end a link's text: before ( (an inline link or image), [ (a reference link) or : (a link definition),
# so no name can make a link, whatever address it holds (javascript:...). A bracket elsewhere stays as it is, as in
# hopkit's own intervals ("[40.0, 60.0]"). HTML's three are written as entities, so no tag (<script>,
# <img onerror=...>), comment or autolink (<javascript:...>) can start.
_BACKSLASHED = frozenset("\\`*~|$")
_LINK_AFTER_BRACKET = ("(", "[", ":")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
# At the start of a line of prose these would make a heading or a list item.
_LINE_START = ("#", "+ ", "- ")


def _inside_word(text: str, i: int) -> bool:
    return 0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum()


def markdown_cell(text: str) -> str:
    """``text`` as it should read in Markdown, in a table cell or inside a line of prose: what
    :func:`~hopkit.terminal.printable` writes as escapes on the terminal (newlines, controls, invisible and blank
    characters) written the same way, ``&``, ``<`` and ``>`` as entities, Markdown's punctuation (``|``, backticks,
    ``*``, ``_``, ``~``, ``$``, ``\\``, and ``]`` before ``(``, ``[`` or ``:``) after a backslash (``_`` inside a
    word is left as it is, Markdown reads it as a letter), and a leading ``#``, ``- `` or ``+ `` after a backslash.
    """
    shown = printable(text)
    out = []
    for i, char in enumerate(shown):
        if char in _ENTITIES:
            out.append(_ENTITIES[char])
        elif (char in _BACKSLASHED or (char == "_" and not _inside_word(shown, i))
              or (char == "]" and shown[i + 1:i + 2] in _LINK_AFTER_BRACKET)):
            out.append("\\" + char)
        else:
            out.append(char)
    escaped = "".join(out)
    return "\\" + escaped if escaped.startswith(_LINE_START) else escaped


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(text: str) -> str:
    """A text cell a spreadsheet shows as text: one starting like a formula ("=HYPERLINK(...)", "+1",
    "@SUM") gets a leading apostrophe, which spreadsheets read as "this is text" (OWASP's advice); other text
    is written as it is (a CSV file holds the data, for further analysis)."""
    return "'" + text if text.startswith(_FORMULA_START) else text
