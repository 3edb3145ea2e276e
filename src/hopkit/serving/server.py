"""Running the retrieval server on uvicorn: one process, or several workers sharing one listening socket.

The parent binds the socket (port 0 takes a free one, printed), loads the retriever once (building its
index if there is none, so that the workers only map it), then serves in this process or starts
``workers`` processes. Each worker loads the same index files memory-mapped, so the page cache holds
one copy for all of them. SIGTERM or Ctrl-C stops accepting, lets the requests in flight finish
(at most ``graceful_seconds``) and exits.

A worker process is sent its settings in :data:`SETTINGS_VARIABLE` (JSON) and builds its application
with :func:`worker_app`.
"""

from __future__ import annotations

import asyncio
import json
import math
import signal
import socket
from dataclasses import asdict, dataclass
from typing import Any, Callable

import uvicorn
from starlette.applications import Starlette
from uvicorn.protocols.http.h11_impl import H11Protocol

from hopkit import environment
from hopkit.remote_retrieval.wire import Limits
from hopkit.serving.app import build_app
from hopkit.serving.options import ServerOptions
from hopkit.serving.served import ServedRetriever, ServeSettings
from hopkit.store.connection import DBConnection

SETTINGS_VARIABLE = "HOPKIT_SERVE_SETTINGS"
GRACEFUL_SECONDS = 30


class ServeConfig(uvicorn.Config):
    """uvicorn's settings plus the read deadline its HTTP protocol enforces on request headers."""

    def __init__(self, app: Any, *, read_deadline: float, **options: Any) -> None:
        super().__init__(app, **options)
        self.read_deadline = read_deadline


class HeaderDeadlineProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, closing a connection whose client has not sent a whole request head within
    the read deadline (after connecting, or after its last response): a client that trickles its headers
    cannot hold a worker. The body has its own deadline in the application."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def _arm(self) -> None:
        seconds = float(getattr(self.config, "read_deadline", 10.0))
        self.loop.call_later(seconds, self._expire, self.cycle)

    def _expire(self, cycle: Any) -> None:
        no_new_request = self.cycle is cycle and (cycle is None or cycle.response_complete)
        if no_new_request and not self.transport.is_closing():
            self.transport.close()


@dataclass(frozen=True)
class ServePlan:
    """Everything a server needs: what it serves, how, where."""

    settings: ServeSettings
    options: ServerOptions
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> ServePlan:
        data = json.loads(text)
        options = dict(data["options"])
        options["limits"] = Limits(**options["limits"])
        return cls(ServeSettings(**data["settings"]), ServerOptions(**options), data["host"], data["port"],
                   data["workers"])


def load_served(settings: ServeSettings, *, progress: bool | None = False) -> ServedRetriever:
    """The served retriever of ``settings``, its store opened here."""
    factory = DBConnection(settings.db_url).get_session_factory()
    return ServedRetriever.load(settings, factory, progress=progress)


def worker_app() -> Starlette:
    """A worker process's application (uvicorn's factory), from :data:`SETTINGS_VARIABLE`."""
    settings = environment.variable(SETTINGS_VARIABLE)
    if settings is None:
        raise SystemExit(f"{SETTINGS_VARIABLE} is not set: a worker is started by hopkit serve-retrieval")
    plan = ServePlan.from_json(settings)
    return build_app(lambda: load_served(plan.settings), plan.options)


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host``:``port`` (0: a free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named: asyncio sets TCP_NODELAY only on sockets that say they are TCP, and without it each reply
    # waited for the client's delayed acknowledgement (about 40 ms on Linux)
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def _config(app: Any, options: ServerOptions, **extra: Any) -> ServeConfig:
    # an idle kept-alive connection is closed at the read deadline, as one whose next request head is late
    return ServeConfig(app, read_deadline=options.read_deadline, http=HeaderDeadlineProtocol, lifespan="on",
                       timeout_keep_alive=max(1, math.ceil(options.read_deadline)),
                       timeout_graceful_shutdown=GRACEFUL_SECONDS, log_level="warning", access_log=False, **extra)


def make_server(served: ServedRetriever, options: ServerOptions) -> uvicorn.Server:
    """A one-process server of ``served`` (``server.run(sockets=[sock])`` serves; ``server.should_exit = True``
    stops it as SIGTERM does)."""
    return uvicorn.Server(_config(build_app(lambda: served, options), options))


def _stopped(signum: int, frame: Any) -> None:
    """SIGTERM after the server has stopped: nothing left to do."""


def serve(plan: ServePlan, sock: socket.socket, served: ServedRetriever,
          announce: Callable[[str], None] = print) -> None:
    """Serve ``plan`` on ``sock`` until SIGTERM or Ctrl-C; ``served`` is the retriever the parent loaded (used by
    the one process, or dropped before the workers load their own)."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    announce(f"serving {served.corpus or served.dataset} ({served.passages:,} passages) with retrieval "
             f"{served.retrieval} (retriever {served.identity}) on http://{shown}:{port} "
             f"({plan.workers} worker{'s' if plan.workers > 1 else ''})")
    if plan.workers == 1:
        # uvicorn stops gracefully on SIGTERM, then raises it again to the handler it found: this one, so that a
        # stop asked for is a normal exit (Ctrl-C still ends as an interruption)
        previous = signal.signal(signal.SIGTERM, _stopped)
        try:
            make_server(served, plan.options).run(sockets=[sock])
        finally:
            signal.signal(signal.SIGTERM, previous)
        return
    del served  # each worker maps the index files itself; the page cache keeps one copy
    environment.set_variable(SETTINGS_VARIABLE, plan.to_json())
    from uvicorn.supervisors import Multiprocess

    config = _config(f"{__name__}:worker_app", plan.options, factory=True, workers=plan.workers)
    Multiprocess(config, sockets=[sock]).run()
