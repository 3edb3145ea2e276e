"""How the scripted OpenAI-compatible server (:mod:`hopkit.llm.testing_server`) misbehaves on a request."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Callable, Sequence

from hopkit.errors import ConfigError

logger = logging.getLogger(__name__)

FAULT_KINDS = ("status", "hang", "drop", "truncated_body", "malformed", "null", "content_filter", "length",
               "empty", "delay", "trickle", "endless", "trickle_headers")
# An endless reply stops by itself after this many bytes or seconds, whichever comes first.
ENDLESS_BYTES = 1 << 30
ENDLESS_SECONDS = 120.0
# Faults whose reply is the model's (scripted) answer, late, slow or cut: they use up a list script's reply.
ANSWERING_FAULTS = ("length", "delay", "trickle")


@dataclass(frozen=True)
class Fault:
    """How the fake server misbehaves on one request.

    Attributes:
        kind: one of
            ``"status"``: HTTP ``status`` with an OpenAI-style error body;
            ``"hang"``: send nothing for ``seconds`` (or until the server closes), then drop the connection;
            ``"drop"``: close the connection without any response;
            ``"truncated_body"``: send the headers and half of the body, then close the connection;
            ``"malformed"``: HTTP 200 with a body that is not JSON;
            ``"null"``: HTTP 200 whose ``text`` (``message.content`` in chat) is null;
            ``"content_filter"``: HTTP 200, null content, ``finish_reason: "content_filter"``;
            ``"length"``: HTTP 200 with the first half of the reply's words, ``finish_reason: "length"``;
            ``"empty"``: HTTP 200 with an empty text;
            ``"delay"``: the normal reply, ``seconds`` late;
            ``"trickle"``: the normal reply (declared length included), one byte every ``seconds``;
            ``"endless"``: HTTP 200 with a chunked body that never ends (it stops by itself after
            :data:`ENDLESS_BYTES` or :data:`ENDLESS_SECONDS`, or when the client goes away);
            ``"trickle_headers"``: the status line ``HTTP/1.1 200 OK``, then one header line every ``seconds``,
            never the end of the headers (it stops after :data:`ENDLESS_SECONDS`, or when the client goes away).
        status: the HTTP status of a ``"status"`` fault (400-599).
        seconds: how long a ``"hang"`` or a ``"delay"`` lasts, a ``"trickle"``'s pause between bytes and a
            ``"trickle_headers"``' between header lines.

    Raises:
        ConfigError: an unknown kind, a status outside 400-599 or negative seconds.
    """

    kind: str
    status: int = 500
    seconds: float = 30.0

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ConfigError(f"fake server: unknown fault kind {self.kind!r}; known: {', '.join(FAULT_KINDS)}")
        if not 400 <= self.status <= 599 or self.seconds < 0:
            raise ConfigError(f"fake server: a fault needs 400 <= status <= 599 and seconds >= 0; "
                              f"got status={self.status}, seconds={self.seconds}")


FaultSchedule = Sequence["Fault | None"] | Callable[[int, str], "Fault | None"]


def send_trickling(handler: BaseHTTPRequestHandler, data: bytes, pause: float, closing: threading.Event) -> bool:
    """Send a 200 reply of ``data`` one byte every ``pause`` seconds; whether it was all written."""
    handler.close_connection = True
    try:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        for index in range(len(data)):
            handler.wfile.write(data[index:index + 1])
            handler.wfile.flush()
            if closing.wait(pause):
                return False
    except (BrokenPipeError, ConnectionResetError):
        return False
    return True


def send_endless(handler: BaseHTTPRequestHandler, closing: threading.Event) -> None:
    """A 200 reply whose chunked body goes on until the client leaves (at most :data:`ENDLESS_BYTES` or
    :data:`ENDLESS_SECONDS`, or until ``closing`` is set)."""
    handler.close_connection = True
    chunk = b"0123456789abcdef" * 4096
    framed = f"{len(chunk):x}\r\n".encode("ascii") + chunk + b"\r\n"
    started, sent = time.monotonic(), 0
    try:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        opening = b'{"choices": [{"text": "'
        handler.wfile.write(f"{len(opening):x}\r\n".encode("ascii") + opening + b"\r\n")
        while sent < ENDLESS_BYTES and time.monotonic() - started < ENDLESS_SECONDS and not closing.is_set():
            handler.wfile.write(framed)
            sent += len(chunk)
    except (BrokenPipeError, ConnectionResetError):
        logger.debug("the client left an endless reply after %d bytes", sent)


def send_trickling_headers(handler: BaseHTTPRequestHandler, pause: float, closing: threading.Event) -> None:
    """A 200 status line, then one header line every ``pause`` seconds without end (at most
    :data:`ENDLESS_SECONDS`, or until the client leaves or ``closing`` is set)."""
    handler.close_connection = True
    started, lines = time.monotonic(), 0
    try:
        handler.wfile.write(b"HTTP/1.1 200 OK\r\n")
        handler.wfile.flush()
        while time.monotonic() - started < ENDLESS_SECONDS and not closing.wait(pause):
            lines += 1
            handler.wfile.write(f"X-Still-Coming-{lines}: yes\r\n".encode("ascii"))
            handler.wfile.flush()
    except (BrokenPipeError, ConnectionResetError):
        logger.debug("the client left trickled headers after %d lines", lines)
