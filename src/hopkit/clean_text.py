"""Text from outside (models, datasets, imported files) made encodable and storable everywhere.

Two characters travel badly. No UTF-8 encoder takes a lone surrogate (U+D800 to U+DFFF:
what Python keeps of a byte that was not UTF-8, or half of a broken pair, as a JSON reader
gives ``"\\ud800"``), so an HTTP client cannot send it on in the next prompt and no UTF-8
column can hold it; PostgreSQL's text and json values cannot hold NUL (U+0000). Each is
replaced by U+FFFD, the Unicode replacement character (two surrogates that form a pair
become the character they encode, as a JSON reader reads them). Every other character is
kept as it is.
"""

from __future__ import annotations

import re

REPLACEMENT = "\ufffd"
_UNCLEAN = re.compile("[\x00\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """``text`` with each NUL and lone surrogate replaced by U+FFFD (the same object when it has none).

    Two surrogates that make a pair become the one character they encode, as a JSON reader makes them.
    """
    if _UNCLEAN.search(text) is None:
        return text
    if _SURROGATE.search(text) is not None:
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text.replace("\x00", REPLACEMENT)
