"""How a retrieval server batches, what it accepts and from whom (no web framework imported here)."""

from __future__ import annotations

from dataclasses import dataclass, field

from hopkit.remote_retrieval.wire import Limits


@dataclass(frozen=True)
class ServerOptions:
    """How a server batches, what it accepts and from whom.

    Attributes:
        limits: the caps on one request.
        token: the bearer token every request must carry (None: none asked; only for a loopback server).
        read_deadline: seconds a client has to send a request's headers and body.
        max_wait: seconds the first query of a batch waits for others (0 with ``max_batch`` 1: no batching).
        max_batch: queries in one batch at most.
        max_queue: queries waiting at most per worker; more are answered 503.
        retry_after: seconds a 503 asks the client to wait.
    """

    limits: Limits = field(default_factory=Limits)
    token: str | None = None
    read_deadline: float = 10.0
    max_wait: float = 0.005
    max_batch: int = 64
    max_queue: int = 1024
    retry_after: int = 1
