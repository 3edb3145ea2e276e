"""A judge's yes/no verdict, read tolerantly: "Yes.", "**No**", "Output: yes, because ..." all read."""

from __future__ import annotations

import re

from hopkit.errors import ParseError
from hopkit.parsing.scanner import Bare
from hopkit.parsing.values import as_bool

__all__ = ["parse_yes_no"]

# Words before the verdict that carry no verdict themselves ("Answer: Yes", "Output - No").
_LEAD_IN = re.compile(r"^(?:\W*(?:answer|output|verdict|response|judg(?:e)?ment)\b)?\W*", re.IGNORECASE)
_YES_NO = re.compile(r"\b(yes|no)\b", re.IGNORECASE)
EXPECTED = "Yes or No"


def parse_yes_no(text: str) -> bool:
    """Read a yes/no verdict from model output.

    The verdict is the first word after any markup and an optional lead-in ("Answer:",
    "Output:"), read by :func:`hopkit.parsing.values.as_bool` (yes/no, true/false). If the
    first word is neither, the text is read only when it contains exactly one of the words
    "yes" and "no" (any case, as whole words); text with both, or with neither, is not
    guessed.

    Args:
        text: what the model wrote.

    Returns:
        True for yes, False for no.

    Raises:
        ParseError: the text holds no verdict, or both (``raw`` keeps the text).
    """
    stripped = _LEAD_IN.sub("", text.strip(), count=1)
    try:
        return as_bool(Bare(stripped))
    except ValueError:
        pass
    words = {match.group(1).casefold() for match in _YES_NO.finditer(text)}
    if words == {"yes"}:
        return True
    if words == {"no"}:
        return False
    detail = "it says both yes and no" if words else "it says neither yes nor no"
    raise ParseError(EXPECTED, text, detail)
