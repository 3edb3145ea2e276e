"""Several base URLs of one model, balanced by requests in flight, a failing one rested.

A model served by a farm of servers (several vLLM or llama.cpp servers, one URL
each) is one :class:`~hopkit.llm.openai_compat.OpenAICompatibleLLM` with several
base URLs. Each request goes to the endpoint with the fewest requests in flight
(ties in turn). An endpoint whose request fails in a way worth retrying rests for
``rest_seconds`` (doubled at each further failure in a row, at most
:data:`MAX_REST_SECONDS`) and is skipped while the others serve; when every
endpoint rests, the one whose rest ends first is tried anyway.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence, TypeVar

from hopkit.errors import LLMError
from hopkit.llm.retry import TransientError

logger = logging.getLogger(__name__)

T = TypeVar("T")

MAX_REST_SECONDS = 300.0


def split_base_urls(base_url: str | Sequence[str]) -> tuple[str, ...]:
    """The base URLs given as one string (separated by commas or spaces) or as a list.

    Raises:
        LLMError: no URL, or one that does not start with http:// or https://.
    """
    parts = base_url.replace(",", " ").split() if isinstance(base_url, str) else [str(u).strip() for u in base_url]
    urls = tuple(dict.fromkeys(u for u in parts if u))
    if not urls:
        raise LLMError(f"base_url names no server: {base_url!r}")
    for url in urls:
        if not url.startswith(("http://", "https://")):
            raise LLMError(f"base_url must start with http:// or https://, got {url!r}")
    return urls


@dataclass
class _Endpoint:
    url: str
    in_flight: int = 0
    failures_in_a_row: int = 0
    resting_until: float = 0.0
    sent: int = 0


class EndpointPool:
    """Chooses the URL for each request and remembers which endpoints fail.

    Args:
        urls: the endpoints' full request URLs.
        rest_seconds: how long an endpoint is skipped after its first failure in a row.
    """

    def __init__(self, urls: Sequence[str], *, rest_seconds: float = 5.0) -> None:
        self._endpoints = [_Endpoint(url) for url in urls]
        self.rest_seconds = rest_seconds
        self._turn = itertools.count()
        self._lock = threading.Lock()

    @property
    def urls(self) -> tuple[str, ...]:
        return tuple(e.url for e in self._endpoints)

    def sent(self) -> dict[str, int]:
        """How many requests went to each URL."""
        with self._lock:
            return {e.url: e.sent for e in self._endpoints}

    @contextmanager
    def lease(self, skip: frozenset[str] = frozenset()) -> Iterator[str]:
        """The URL for one request, counted as in flight until the block ends.

        Args:
            skip: URLs this request already failed on; chosen only when nothing else is left.
        """
        endpoint = self._choose(skip)
        try:
            yield endpoint.url
        finally:
            with self._lock:
                endpoint.in_flight -= 1

    def call(self, attempt: Callable[[str], T]) -> tuple[str, T]:
        """One attempt of a request, moved on to the next awake endpoint each time one fails in a way worth
        retrying (:class:`~hopkit.llm.retry.TransientError`); returns the URL that answered and its answer.

        Raises:
            TransientError: every endpoint tried failed so (the last one's error).
        """
        tried: frozenset[str] = frozenset()
        while True:
            with self.lease(skip=tried) as url:
                try:
                    answer = attempt(url)
                except TransientError as exc:
                    self.failed(url)
                    tried |= {url}
                    if len(self._endpoints) > 1:
                        logger.warning("%s: %s; trying another server", url, exc)
                    if self.untried(tried):
                        continue
                    raise
            self.succeeded(url)
            return url, answer

    def succeeded(self, url: str) -> None:
        with self._lock:
            endpoint = self._find(url)
            endpoint.failures_in_a_row = 0
            endpoint.resting_until = 0.0

    def failed(self, url: str) -> None:
        """Rest ``url``: skip it while other endpoints serve."""
        with self._lock:
            endpoint = self._find(url)
            rest = min(self.rest_seconds * 2.0 ** endpoint.failures_in_a_row, MAX_REST_SECONDS)
            endpoint.failures_in_a_row += 1
            endpoint.resting_until = time.monotonic() + rest

    def untried(self, tried: frozenset[str]) -> bool:
        """Whether an endpoint outside ``tried`` is awake to take the request."""
        now = time.monotonic()
        with self._lock:
            return any(e.url not in tried and e.resting_until <= now for e in self._endpoints)

    def _choose(self, skip: frozenset[str]) -> _Endpoint:
        now = time.monotonic()
        with self._lock:
            turn = next(self._turn)
            count = len(self._endpoints)
            in_turn = [self._endpoints[(turn + i) % count] for i in range(count)]
            candidates = ([e for e in in_turn if e.url not in skip and e.resting_until <= now]
                          or [e for e in in_turn if e.resting_until <= now]
                          or [min(in_turn, key=lambda e: e.resting_until)])
            endpoint = min(candidates, key=lambda e: e.in_flight)
            endpoint.in_flight += 1
            endpoint.sent += 1
            return endpoint

    def _find(self, url: str) -> _Endpoint:
        for endpoint in self._endpoints:
            if endpoint.url == url:
                return endpoint
        raise LLMError(f"{url} is not one of this model's endpoints {self.urls}")
