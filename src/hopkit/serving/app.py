"""The retrieval server's ASGI application (Starlette): ``POST /retrieve``, ``POST /hopkit/retrieve``, ``GET /health``.

Starlette is the request layer FastAPI is built on, kept by the same people and as widely deployed; hopkit
reads and checks the requests itself (:mod:`hopkit.remote_retrieval.wire`, so a 400 names the field) and needs
none of FastAPI's model layer. Its ``JSONResponse`` writes the same bytes FastAPI's default response
does, so Search-R1's clients read the same bytes they read from Search-R1's server.

Every request: the bearer token when the server has one (401 without it), the body read within the read
deadline (408) and under the body cap (413), checked (400 naming the field), then its queries wait for a
batch (:mod:`hopkit.serving.batcher`; 503 with ``Retry-After`` when the queue is full).
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import sys
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Callable, Sequence

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from hopkit.errors import DataError
from hopkit.remote_retrieval.wire import (HEALTH_PATH, HOPKIT_PATH, IDENTITY_HEADER, SEARCH_R1_PATH, Limits,
                                          ParsedRequest, QueryItem, ServedHit, hopkit_result, read_hopkit,
                                          read_search_r1, search_r1_result)
from hopkit.serving.batcher import Batcher, Overloaded
from hopkit.serving.options import ServerOptions
from hopkit.serving.served import ServedRetriever

logger = logging.getLogger(__name__)

SWITCH_INTERVAL = 0.0005  # seconds: how long a thread may hold the interpreter while another waits for it


class _Refused(Exception):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.headers = headers or {}


def _error(status: int, message: str, field_name: str | None = None, headers: dict[str, str] | None = None,
           ) -> JSONResponse:
    body: dict[str, Any] = {"error": message}
    if field_name is not None:
        body["field"] = field_name
    return JSONResponse(body, status_code=status, headers=headers)


def _authorised(request: Request, token: str | None) -> None:
    if token is None:
        return
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token.encode()):
        raise _Refused(401, "missing or wrong bearer token (send Authorization: Bearer TOKEN)",
                       {"www-authenticate": "Bearer"})


async def _body(request: Request, options: ServerOptions) -> bytes:
    cap = options.limits.max_body_bytes
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > cap:
        raise _Refused(413, f"the body is {int(declared):,} bytes, more than this server's cap of {cap:,}")
    body = bytearray()
    try:
        async with asyncio.timeout(options.read_deadline):
            async for chunk in request.stream():
                body += chunk
                if len(body) > cap:
                    raise _Refused(413, f"the body is more than this server's cap of {cap:,} bytes")
    except TimeoutError as exc:
        raise _Refused(408, f"the body did not arrive within the read deadline of {options.read_deadline:g}s",
                       {"connection": "close"}) from exc
    return bytes(body)


def build_app(load: Callable[[], ServedRetriever], options: ServerOptions) -> Starlette:
    """The application; ``load`` gives the served retriever when the server starts (in each worker process)."""
    state: dict[str, Any] = {}

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        # The search thread holds the interpreter for a whole batch; at Python's default switch interval (5 ms)
        # the event loop waits that long each time it needs it to read a request or write a reply. A server
        # process does little else, so a shorter interval costs nothing.
        sys.setswitchinterval(SWITCH_INTERVAL)
        served = load()
        batcher: Batcher[QueryItem, list[ServedHit]] = Batcher(
            served.search, max_wait=options.max_wait, max_batch=options.max_batch, max_queue=options.max_queue)
        batcher.start()
        state.update(served=served, batcher=batcher)
        logger.info("serving %s (%s, %d passages), retriever %s", served.corpus or served.dataset, served.retrieval,
                    served.passages, served.identity)
        try:
            yield
        finally:
            await batcher.stop()

    def identified(response: Response) -> Response:
        response.headers[IDENTITY_HEADER] = state["served"].identity
        return response

    async def health(request: Request) -> Response:
        try:
            _authorised(request, options.token)
        except _Refused as refused:
            return _error(refused.status, str(refused), headers=refused.headers)
        batcher = state["batcher"]
        batching = {"waiting": batcher.waiting, "batches": batcher.batches, "searched": batcher.searched,
                    "max_batch": options.max_batch, "max_wait_ms": options.max_wait * 1000}
        return identified(JSONResponse({**state["served"].health(), "batching": batching}))

    async def answer(request: Request, read: Callable[[bytes, Limits], ParsedRequest],
                     render: Callable[[Sequence[Sequence[ServedHit]], bool], dict[str, Any]]) -> Response:
        try:
            _authorised(request, options.token)
            parsed = read(await _body(request, options), options.limits)
            hits = await state["batcher"].submit(parsed.items)
        except _Refused as refused:
            return _error(refused.status, str(refused), headers=refused.headers)
        except DataError as bad:
            return _error(400, str(bad), bad.field)
        except Overloaded as full:
            return _error(503, f"the server is busy: {full}; retry later", headers={
                "retry-after": str(options.retry_after)})
        except Exception as exc:  # noqa: BLE001 (the batch failed: logged by the batcher, the client told)
            return _error(500, f"{type(exc).__name__}: {exc}")
        return identified(JSONResponse(render(hits, parsed.return_scores)))

    async def search_r1(request: Request) -> Response:
        return await answer(request, read_search_r1, search_r1_result)

    async def hopkit(request: Request) -> Response:
        return await answer(request, read_hopkit, lambda hits, _scores: hopkit_result(hits))

    return Starlette(routes=[Route(SEARCH_R1_PATH, search_r1, methods=["POST"]),
                             Route(HOPKIT_PATH, hopkit, methods=["POST"]),
                             Route(HEALTH_PATH, health, methods=["GET"])], lifespan=lifespan)

