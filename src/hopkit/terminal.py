"""Text from a store or a file, made safe to print on a terminal.

A run's name, a dataset's name or an answer may come from anyone (an imported file, a
model): printed as it is, an escape sequence in it (``\\x1b[2J``) would clear or rewrite
the user's terminal, and a bidirectional override would show other text than is there.
"""

from __future__ import annotations

import re

# C0 and C1 controls, DEL, and the bidirectional embeddings, overrides and isolates.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` with each control character written as an escape (``\\x1b``, ``\\u202e``), so it prints
    as what it is; other text is unchanged."""
    return _UNPRINTABLE.sub(lambda match: match.group().encode("unicode_escape").decode("ascii"), text)
