"""Real retrieval servers on 127.0.0.1 for the tests: a store holding the bundled sample, a BM25 index over it,
served by uvicorn in a thread of the test's process on a free port (or by ``hopkit serve-retrieval``)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Collection, Iterator

from hopkit.cli import main
from hopkit.records import ScoredParagraph
from hopkit.retrieval.protocol import Retriever
from hopkit.serving.options import ServerOptions
from hopkit.serving.served import ServedRetriever, ServeSettings
from hopkit.serving.server import bind, load_served, make_server
from tests.polling import wait_until

SERVE_SECONDS = 60  # the longest a test waits for a server to start or stop


def sample_store(folder: Path, limit: int = 6) -> str:
    """A SQLite store in ``folder`` holding the first ``limit`` questions of the bundled sample; its URL."""
    url = f"sqlite:///{folder / 'store.db'}"
    assert main(["--db", url, "ingest", "sample", "--limit", str(limit)]) == 0
    return url


def served_sample(url: str, retrieval: str = "bm25") -> ServedRetriever:
    """The sample's retriever as a server loads it (its index built under ``$HOPKIT_HOME``)."""
    return load_served(ServeSettings(url, retrieval, "sample"))


class GatedRetriever:
    """A real retriever whose searches wait until the test opens the gate: a server kept busy on purpose."""

    def __init__(self, inner: Retriever) -> None:
        self.inner = inner
        self.gate = threading.Event()
        self.entered = threading.Event()

    def retrieve(self, query: str, k: int, exclude: Collection[int] = frozenset(),
                 titles: Collection[str] | None = None) -> list[ScoredParagraph]:
        self.entered.set()
        if not self.gate.wait(SERVE_SECONDS):
            raise TimeoutError("the test never opened the gate")
        return self.inner.retrieve(query, k, exclude, titles)


@dataclass
class Running:
    """A server running in a thread of the test's process: its base URL and its port."""

    url: str
    port: int
    server: Any
    thread: threading.Thread

    def stop(self) -> None:
        """Stop it as SIGTERM does (the requests in flight finish) and wait until it has."""
        self.server.should_exit = True
        self.thread.join(SERVE_SECONDS)


@contextmanager
def running(served: ServedRetriever, options: ServerOptions | None = None, port: int = 0) -> Iterator[Running]:
    """``served`` on a loopback port (0: a free one) for the block, stopped at its end."""
    sock = bind("127.0.0.1", port)
    server = make_server(served, options or ServerOptions())
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    port = sock.getsockname()[1]
    handle = Running(f"http://127.0.0.1:{port}", port, server, thread)
    try:
        wait_until(lambda: server.started, SERVE_SECONDS, "the server to start")
        yield handle
    finally:
        handle.stop()
        sock.close()


@contextmanager
def serving(served: ServedRetriever, options: ServerOptions | None = None) -> Iterator[str]:
    """``served`` on a free loopback port for the block; its base URL."""
    with running(served, options) as server:
        yield server.url


def serve_command(url: str, *args: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], str]:
    """``hopkit serve-retrieval`` started as its own process on a free port; the process and its base URL."""
    process = subprocess.Popen([sys.executable, "-c", "import sys; from hopkit.cli import main; sys.exit(main())",
                                "--db", url, "serve-retrieval", "--port", "0", "--quiet", *args],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, **(env or {})})
    assert process.stdout is not None
    line = process.stdout.readline()
    if "on http://" not in line:
        process.kill()
        raise AssertionError(f"serve-retrieval did not start: {line!r} {process.stderr.read() if process.stderr else ''}")
    base = line.split(" on ", 1)[1].split()[0]
    return process, base


def stop(process: subprocess.Popen[Any]) -> int:
    """Stop a server process as an operator does (SIGTERM); its exit code."""
    process.terminate()
    return process.wait(SERVE_SECONDS)
