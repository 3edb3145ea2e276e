"""The one way the command line reads a number: every integer option is parsed by :func:`integer`, every
decimal one by :func:`number`, as argparse ``type=`` functions.

An integer option takes only what the store (SQLite's 64-bit INTEGER) can hold, so a value like
``--limit 100000000000000000000`` is refused by argparse with one line naming the option
(``argument --limit: expected an integer between ... got ...``, exit code 2) instead of an
``OverflowError`` from deep inside a query. A decimal option takes only finite numbers. Narrower
ranges (``--workers`` at least 1) are checked where each option is used, as for the same field
of a config file, so the two say the same.
"""

from __future__ import annotations

import argparse
import math
from typing import Callable

from hopkit.options import shown

#: The largest integer SQLite stores (a signed 64-bit INTEGER); the smallest is its negative minus one.
STORE_INTEGER_MAX = 2**63 - 1
STORE_INTEGER_MIN = -(2**63)


def integer(minimum: int = STORE_INTEGER_MIN) -> Callable[[str], int]:
    """An argparse ``type`` reading a decimal integer from ``minimum`` to :data:`STORE_INTEGER_MAX`.

    Args:
        minimum: the smallest value taken (default: the store's smallest integer).

    Returns:
        The parsing function; it raises :class:`argparse.ArgumentTypeError`, which argparse prints after the
        option's name.
    """
    low = max(minimum, STORE_INTEGER_MIN)
    wanted = (f"an integer from {low} to {STORE_INTEGER_MAX}" if low > STORE_INTEGER_MIN
              else f"an integer between {STORE_INTEGER_MIN} and {STORE_INTEGER_MAX}")

    def parse(text: str) -> int:
        digits = text.strip()
        # a bound on the text first: int() of thousands of digits is slow, and past 4,300 Python refuses it
        if len(digits.lstrip("+-").lstrip("0")) > len(str(STORE_INTEGER_MAX)):
            raise argparse.ArgumentTypeError(f"expected {wanted}, got {shown(text)}")
        try:
            value = int(digits, 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {wanted}, got {shown(text)}") from None
        if not low <= value <= STORE_INTEGER_MAX:
            raise argparse.ArgumentTypeError(f"expected {wanted}, got {shown(text)}")
        return value

    parse.__name__ = "integer"
    return parse


def number(text: str) -> float:
    """An argparse ``type`` reading a finite decimal number (not ``nan``, not ``inf``).

    Raises:
        argparse.ArgumentTypeError: another text.
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {shown(text)}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {shown(text)}")
    return value
