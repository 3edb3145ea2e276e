"""A fake Hugging Face Hub on 127.0.0.1 serving a few small files, for tests and offline examples.

It answers the two requests ``huggingface_hub.hf_hub_download`` makes for a file,
``HEAD`` then ``GET /{owner}/{name}/resolve/{revision}/{path}``, the way the Hub does:
the metadata headers ``X-Repo-Commit``, ``ETag`` and ``Content-Length``; for what it
does not have, the Hub's ``X-Error-Code`` (``RepoNotFound`` with HTTP 401,
``RevisionNotFound`` or ``EntryNotFound`` with HTTP 404). Every request is recorded::

    with serve_fake_hub({"acme/tiny-GGUF/tiny.gguf": b"not a real model"}) as hub:
        path = download_hub_file(HubFile("acme/tiny-GGUF", "tiny.gguf"), endpoint=hub.url,
                                 cache_dir=tmp_path)
        hub.requests   # [HubRequest("HEAD", ...), HubRequest("GET", ...)]

The server listens on 127.0.0.1 only, on a free port, and stops when the ``with`` block
ends; a connection that sends nothing is dropped after :data:`IDLE_SECONDS`.

``huggingface_hub`` also makes a request of its own: the first download of a process
fetches an "agent harness" list from the Hub it was imported with (https://huggingface.co
unless ``$HF_ENDPOINT`` was set then), for its telemetry. :func:`loopback_only` turns that
off and records the host of every TCP connection, so a test can check that it reached
127.0.0.1 only::

    with loopback_only() as hosts, serve_fake_hub(files) as hub:
        ...
    assert set(hosts) == {"127.0.0.1"}
"""

from __future__ import annotations

import hashlib
import socket
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

#: The commit every revision of the fake Hub resolves to (``main`` and this id are known).
FAKE_COMMIT = "0123456789abcdef0123456789abcdef01234567"
IDLE_SECONDS = 10.0


@dataclass(frozen=True)
class HubRequest:
    """One request the fake Hub received.

    Attributes:
        method: ``HEAD`` or ``GET`` (others are recorded too, and answered 405).
        path: the URL path, still %-encoded.
        headers: the request's headers.
    """

    method: str
    path: str
    headers: Mapping[str, str]


@dataclass
class FakeHub:
    """A running fake Hub: its URL (the ``endpoint``) and the requests it received so far.

    Attributes:
        url: ``http://127.0.0.1:PORT``.
        files: ``"OWNER/NAME/PATH"`` -> the file's bytes (``"datasets/OWNER/NAME/PATH"`` for a dataset
            repository's file, asked for as ``/datasets/OWNER/NAME/resolve/...``).
        commit: the commit id of every repository.
        cut_bodies: a file's ``GET`` sends half of its bytes, then closes the connection
            (its ``Content-Length`` still announces them all), like a network that fails
            mid-download.
        requests: every request received, in order.
    """

    url: str
    files: Mapping[str, bytes]
    commit: str = FAKE_COMMIT
    cut_bodies: bool = False
    requests: list[HubRequest] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record(self, request: HubRequest) -> None:
        """Add ``request`` to :attr:`requests` (thread-safe)."""
        with self._lock:
            self.requests.append(request)

    def answer(self, path: str) -> tuple[int, dict[str, str], bytes]:
        """The status, headers and body the Hub gives a ``/resolve/`` request for ``path``.

        Args:
            path: the URL path, %-encoded.

        Returns:
            ``(status, headers, body)``; the body is the file's bytes for a file it has.
        """
        parts = path.split("?", 1)[0].strip("/").split("/")
        kind = ""
        if parts and parts[0] in ("datasets", "spaces"):  # /datasets/OWNER/NAME/resolve/...
            kind, parts = parts[0] + "/", parts[1:]
        if len(parts) < 5 or parts[2] != "resolve":
            return 404, {}, b"Not Found"
        repo, revision, name = kind + "/".join(parts[:2]), unquote(parts[3]), unquote("/".join(parts[4:]))
        if not any(key.startswith(repo + "/") for key in self.files):
            return 401, {"X-Error-Code": "RepoNotFound", "X-Error-Message": "Repository not found"}, b""
        if revision not in ("main", self.commit):
            return 404, {"X-Error-Code": "RevisionNotFound", "X-Error-Message": "Invalid rev id"}, b""
        body = self.files.get(f"{repo}/{name}")
        if body is None:
            return 404, {"X-Error-Code": "EntryNotFound", "X-Error-Message": "Entry not found",
                         "X-Repo-Commit": self.commit}, b""
        return 200, {"X-Repo-Commit": self.commit, "ETag": f'"{hashlib.sha256(body).hexdigest()}"',
                     "Content-Type": "application/octet-stream"}, body


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    timeout = IDLE_SECONDS

    def _reply(self, send_body: bool) -> None:
        hub = self.server.hub
        hub.record(HubRequest(self.command, self.path, dict(self.headers.items())))
        status, headers, body = hub.answer(self.path)
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if send_body:
            self.wfile.write(body[: len(body) // 2] if hub.cut_bodies and status == 200 else body)

    def do_HEAD(self) -> None:  # noqa: N802 (http.server's naming)
        self._reply(send_body=False)

    def do_GET(self) -> None:  # noqa: N802
        self._reply(send_body=True)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base class's name)
        """Quiet: the requests are in :attr:`FakeHub.requests`."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, hub: FakeHub) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.hub = hub


@contextmanager
def serve_fake_hub(files: Mapping[str, bytes], *, commit: str = FAKE_COMMIT,
                   cut_bodies: bool = False) -> Iterator[FakeHub]:
    """Serve ``files`` as a Hugging Face Hub on 127.0.0.1 until the ``with`` block ends.

    Args:
        files: ``"OWNER/NAME/PATH"`` -> bytes; the repositories are the ``OWNER/NAME`` prefixes
            (``"datasets/OWNER/NAME/PATH"``: a file of a dataset repository).
        commit: the 40-hex commit id every revision resolves to.
        cut_bodies: send half of each file and close the connection (:attr:`FakeHub.cut_bodies`).

    Yields:
        The running hub; pass ``hub.url`` as the ``endpoint`` (or ``$HF_ENDPOINT``).
    """
    hub = FakeHub(url="", files=dict(files), commit=commit, cut_bodies=cut_bodies)
    server = _Server(hub)
    hub.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield hub
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=IDLE_SECONDS)


@contextmanager
def loopback_only() -> Iterator[list[str]]:
    """Within the block, huggingface_hub's telemetry is off and every TCP connection's host is recorded.

    Yields:
        The hosts connected to so far (``socket.create_connection``, which huggingface_hub's HTTP
        client uses), in order; both settings are restored when the block ends.
    """
    from huggingface_hub import constants

    hosts: list[str] = []
    connect = socket.create_connection
    telemetry_off = constants.HF_HUB_DISABLE_TELEMETRY

    def recording(address: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
        hosts.append(address[0])
        return connect(address, *args, **kwargs)

    constants.HF_HUB_DISABLE_TELEMETRY = True
    socket.create_connection = recording  # type: ignore[assignment]
    try:
        yield hosts
    finally:
        socket.create_connection = connect
        constants.HF_HUB_DISABLE_TELEMETRY = telemetry_off
