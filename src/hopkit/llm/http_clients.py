"""The HTTP clients an OpenAI-compatible model sends its requests with, each request under a deadline.

httpx bounds each operation (connect, each write, each read), not a request: a server that sends a
byte, or a header line, a little faster than the read timeout holds a request for as long as it
likes. :meth:`ClientPool.stream` bounds the whole exchange, connect to last byte: the connect
timeout is at most the deadline, and when the deadline passes one watchdog thread shuts the
request's socket down, which ends whatever wait it is in (the status line, a header, the body, a
write the server does not read).
"""

from __future__ import annotations

import functools
import os
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from hopkit.llm.retry import TransientError

# What a request is doing, by the httpcore trace event that starts it (for the message of a deadline passed).
_PHASES = {"connection.connect_tcp.started": "connecting",
           "connection.start_tls.started": "connecting",
           "http11.send_request_headers.started": "sending the request",
           "http11.send_request_body.started": "sending the request",
           "http11.receive_response_headers.started": "waiting for the status line and headers",
           "http11.receive_response_body.started": "reading the reply"}
# The trace events whose ``return_value`` is the stream of a new connection (TLS wraps the TCP socket).
_CONNECTED = ("connection.connect_tcp.complete", "connection.start_tls.complete")


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


class _Kept:
    """A pooled client and the socket of the connection it opened last (the one its next request uses:
    a client serves one request at a time)."""

    def __init__(self, client: httpx.Client) -> None:
        self.client = client
        self.socket: socket.socket | None = None


class _Watch:
    """One request's deadline: when it passes, the request's socket is shut down (once it has one).

    Its :meth:`trace` is the request's httpcore ``trace`` extension, called in the request's thread
    as it connects, sends and receives; :meth:`expire` is called by the watchdog thread.
    """

    def __init__(self, kept: _Kept, seconds: float) -> None:
        self.kept = kept
        self.at = time.monotonic() + seconds
        self.passed = False
        self.phase = "connecting"
        self._over = False
        self._lock = threading.Lock()

    def trace(self, event: str, info: dict[str, Any]) -> None:
        if event in _PHASES:
            self.phase = _PHASES[event]
        elif event in _CONNECTED:
            stream = info.get("return_value")
            sock = stream.get_extra_info("socket") if stream is not None else None
            with self._lock:
                self.kept.socket = sock
                late = self.passed
            if late:  # the deadline passed while connecting
                _shut(sock)

    def expire(self) -> None:
        with self._lock:
            if self._over:
                return
            self.passed = True
            sock = self.kept.socket
        _shut(sock)

    def finish(self) -> bool:
        """End the watch; whether the deadline passed before."""
        with self._lock:
            self._over = True
            return self.passed


def _shut(sock: socket.socket | None) -> None:
    """Shut ``sock`` down both ways, which wakes a thread blocked on it (closing it would not)."""
    if sock is None:
        return
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except (OSError, ValueError):  # closed already, or a TLS socket unwrapped meanwhile
        pass


class _Watchdog:
    """One daemon thread that expires the watches whose deadline passed."""

    def __init__(self) -> None:
        self._watches: set[_Watch] = set()
        self._changed = threading.Condition()
        self._wakes_at = float("inf")
        self._thread: threading.Thread | None = None

    def add(self, watch: _Watch) -> None:
        with self._changed:
            self._watches.add(watch)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="hopkit-http-deadlines", daemon=True)
                self._thread.start()
            if watch.at < self._wakes_at:
                self._changed.notify()

    def discard(self, watch: _Watch) -> None:
        with self._changed:
            self._watches.discard(watch)

    def _run(self) -> None:
        while True:
            with self._changed:
                now = time.monotonic()
                due = [watch for watch in self._watches if watch.at <= now]
                self._watches.difference_update(due)
                if not due:
                    self._wakes_at = min((watch.at for watch in self._watches), default=float("inf"))
                    self._changed.wait(None if self._wakes_at == float("inf") else self._wakes_at - now)
                    self._wakes_at = float("inf")
                    continue
            for watch in due:
                watch.expire()


_watchdog = _Watchdog()


def _new_watchdog_after_fork() -> None:
    global _watchdog
    _watchdog = _Watchdog()  # the parent's thread is not in the child


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_watchdog_after_fork)


class ClientPool:
    """One client per request in flight, each with its own connection pool, kept for the next request.

    httpcore locks a pool for every request and checks each of its idle connections under that
    lock, so worker threads sharing one pool queued for it.

    Args:
        timeout: seconds to connect, and to wait for each write and each read.
    """

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._idle: list[_Kept] = []
        self._generation = 0  # clients of an earlier one are closed when given back
        self._lock = threading.Lock()

    @contextmanager
    def stream(self, method: str, url: str, *, deadline: float, **options: Any) -> Iterator[httpx.Response]:
        """A streamed request (``httpx.Client.stream``) that ends, whatever the server does, within ``deadline``
        seconds: connecting, sending, the status line and headers and the body read in the block.

        Raises:
            TransientError: the deadline passed (the message says what the request was waiting for).
            httpx.HTTPError: the request failed otherwise, within the deadline.
        """
        with self._borrowed() as kept:
            watch = _Watch(kept, deadline)
            timeout = httpx.Timeout(self.timeout, connect=min(self.timeout, deadline))
            _watchdog.add(watch)
            try:
                with kept.client.stream(method, url, timeout=timeout, extensions={"trace": watch.trace},
                                        **options) as response:
                    yield response
            except Exception as exc:  # after the socket was shut down, whatever broke broke because of it
                if watch.finish() and not isinstance(exc, TransientError):
                    raise TransientError(f"no whole reply within deadline={deadline:g}s ({watch.phase} when it "
                                         "passed)") from exc
                raise
            finally:
                _watchdog.discard(watch)
                if watch.finish():  # its socket may be shut down: a later request must not find it
                    kept.client.close()

    @contextmanager
    def _borrowed(self) -> Iterator[_Kept]:
        """A client of the caller's alone while its request is in flight."""
        with self._lock:  # a new client is made under the lock too: the first one makes the TLS settings
            generation = self._generation
            kept = self._idle.pop() if self._idle else _Kept(httpx.Client(timeout=self.timeout,
                                                                           transport=_transport()))
        try:
            yield kept
        finally:
            with self._lock:
                keep = generation == self._generation and not kept.client.is_closed
                if keep:
                    self._idle.append(kept)
            if not keep:
                kept.client.close()

    def close(self) -> None:
        """Close the idle clients; one in flight closes its own when given back."""
        with self._lock:
            idle, self._idle = self._idle, []
            self._generation += 1
        for kept in idle:
            kept.client.close()
