"""Text from outside (models, datasets, imported files) made storable on every database.

PostgreSQL's text and json values cannot hold the NUL character (U+0000), and no UTF-8
column, SQLite's included, can hold a lone surrogate (U+D800 to U+DFFF: what Python
keeps of a byte that was not UTF-8, or half of a broken pair). A model may write either,
and a dataset or an export file may carry them. Before anything is written, each is
replaced by U+FFFD, the Unicode replacement character (two surrogates that form a pair
become the character they encode, as a JSON reader reads them), on both databases alike, so the
same result reads back the same from SQLite and from PostgreSQL, and an export moves
between them unchanged. Every other character is stored as it is.
"""

from __future__ import annotations

from typing import Any

from hopkit.clean_text import REPLACEMENT, clean_text

__all__ = ["MAX_NAME_LENGTH", "REPLACEMENT", "name_too_long", "optional_text", "storable_json", "storable_text"]

#: ``text`` with each NUL and lone surrogate replaced by U+FFFD (:func:`hopkit.clean_text.clean_text`).
storable_text = clean_text


def storable_json(value: Any) -> Any:
    """A JSON value (dicts, lists, strings, numbers, booleans, None) with every string in it,
    keys included, made storable by :func:`storable_text`."""
    if isinstance(value, str):
        return storable_text(value)
    if isinstance(value, dict):
        return {storable_text(k) if isinstance(k, str) else k: storable_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [storable_json(item) for item in value]
    return value


def optional_text(text: str | None) -> str | None:
    """:func:`storable_text`, passing None through."""
    return None if text is None else storable_text(text)


# Names and ids are indexed, and PostgreSQL cannot index a value past about 2,700 bytes: a run's or
# dataset's name, a question id and a judge's name are labels, so they are held to this many characters.
MAX_NAME_LENGTH = 200


def name_too_long(value: str) -> str:
    """Why ``value`` cannot be a stored name or id ("" when it can): its length, and the limit."""
    if len(value) <= MAX_NAME_LENGTH:
        return ""
    return (f"is {len(value):,} characters long, more than the {MAX_NAME_LENGTH} a name or id may have "
            f"(it starts {value[:40]!r})")
