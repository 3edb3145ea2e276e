"""Bounded retries with exponential backoff, the one place the HTTP backends retry.

An attempt signals a failure worth retrying (rate limit, server error, time-out,
refused connection) by raising :class:`TransientError`; anything else it raises
passes through at once. After the last retry the failure becomes an
:class:`~hopkit.errors.LLMServerError` naming the URL and the last error.
"""

from __future__ import annotations

import email.utils
import logging
import time
from datetime import datetime, timezone
from typing import Callable, TypeVar

from hopkit.errors import HopkitError, LLMError, LLMServerError

logger = logging.getLogger(__name__)

T = TypeVar("T")

# Longest single wait, whatever the backoff or the server's Retry-After asks for.
MAX_DELAY_SECONDS = 120.0


class TransientError(LLMError):
    """An attempt failed in a way that a later attempt may not (raised inside retry_call only).

    Args:
        message: what went wrong (status and server message, or the network error).
        retry_after: seconds the server asked us to wait, if it said.
    """

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def parse_retry_after(value: str | None) -> float | None:
    """Read an HTTP ``Retry-After`` header: delay seconds or an HTTP date.

    Args:
        value: the header value, or ``None`` when absent.

    Returns:
        Seconds to wait (never negative), or ``None`` if absent or unreadable.
    """
    if value is None or not value.strip():
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


def backoff_delay(retry: int, backoff: float, retry_after: float | None) -> float:
    """Seconds to wait before retry number ``retry`` (0-based).

    Exponential (``backoff * 2**retry``) unless the server asked for longer;
    capped at :data:`MAX_DELAY_SECONDS`.
    """
    delay = backoff * (2.0 ** retry)
    if retry_after is not None:
        delay = max(delay, retry_after)
    return min(delay, MAX_DELAY_SECONDS)


def _sleep(seconds: float) -> None:
    # Module-level indirection so tests can record waits instead of sleeping.
    time.sleep(seconds)


def retry_call(attempt: Callable[[], T], *, url: str, max_retries: int, backoff: float,
               error: type[HopkitError] = LLMServerError) -> T:
    """Run ``attempt`` until it succeeds, retrying transient failures at most ``max_retries`` times.

    Args:
        attempt: one try; raises :class:`TransientError` for a failure worth retrying.
        url: where the attempts go, named in the final error.
        max_retries: retries after the first attempt (0: try once).
        backoff: seconds before the first retry; doubled for each further one.
        error: what the last failure becomes (a retrieval server's client raises its own).

    Returns:
        What the first successful attempt returned.

    Raises:
        LLMServerError: every attempt failed transiently (or ``error``).
        Exception: whatever non-transient error an attempt raised, unchanged.
    """
    retry = 0
    while True:
        try:
            return attempt()
        except TransientError as exc:
            if retry >= max_retries:
                raise error(
                    f"{url} failed {retry + 1} time(s), giving up; last error: {exc}. Check that the server "
                    f"is up and not overloaded, or raise max_retries/backoff") from exc
            delay = backoff_delay(retry, backoff, exc.retry_after)
            logger.warning("%s: %s; retry %d/%d in %.1fs", url, exc, retry + 1, max_retries, delay)
            _sleep(delay)
            retry += 1
