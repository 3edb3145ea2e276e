"""The HTTP clients an OpenAI-compatible model sends its requests with."""

from __future__ import annotations

import functools
import socket
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import httpx


def _transport() -> httpx.HTTPTransport:
    """Kept-alive connections, each request sent at once.

    httpx writes a request's headers and body separately; without TCP_NODELAY the body can wait
    for the server's delayed acknowledgement of the headers (about 40 ms on Linux). Its default
    pool keeps 20 idle connections, so a farm of more servers than that would reconnect per call.
    """
    return httpx.HTTPTransport(limits=httpx.Limits(max_connections=None, max_keepalive_connections=None),
                               socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)],
                               verify=_tls_settings())


@functools.cache
def _tls_settings() -> ssl.SSLContext:
    """httpx's default TLS settings, made once per process (each takes about 30 ms: the CA bundle is read)."""
    return httpx.create_ssl_context()


class ClientPool:
    """One client per request in flight, each with its own connection pool, kept for the next request.

    httpcore locks a pool for every request and checks each of its idle connections under that
    lock, so worker threads sharing one pool queued for it.
    """

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._idle: list[httpx.Client] = []
        self._generation = 0  # clients of an earlier one are closed when given back
        self._lock = threading.Lock()

    @contextmanager
    def borrowed(self) -> Iterator[httpx.Client]:
        """A client of the caller's alone while its request is in flight."""
        with self._lock:  # a new client is made under the lock too: the first one makes the TLS settings
            generation = self._generation
            client = self._idle.pop() if self._idle else httpx.Client(timeout=self.timeout, transport=_transport())
        try:
            yield client
        finally:
            with self._lock:
                kept = generation == self._generation
                if kept:
                    self._idle.append(client)
            if not kept:
                client.close()

    def close(self) -> None:
        """Close the idle clients; one in flight closes its own when given back."""
        with self._lock:
            idle, self._idle = self._idle, []
            self._generation += 1
        for client in idle:
            client.close()
