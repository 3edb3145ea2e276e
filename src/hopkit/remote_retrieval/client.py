"""Any retrieval server as a retriever: ``hopkit serve-retrieval`` (either shape) or Search-R1's own server.

Requests go out as the OpenAI-compatible LLM's do, through the same parts: each under a deadline
(:class:`~hopkit.llm.http_clients.ClientPool`), spread over a farm of servers by requests in flight with
a failing one rested (:class:`~hopkit.llm.endpoint_pool.EndpointPool`), retried with backoff honouring
``Retry-After`` (:func:`~hopkit.llm.retry.retry_call`). A server that keeps failing becomes a
:class:`~hopkit.errors.RetrievalServerError` (the run counts it as a server failure and a rerun asks the
question again). Every reply of a hopkit server names its retriever; one that names another than the
run began with stops the question at once.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, Callable, Collection, Sequence

import httpx

from hopkit import environment
from hopkit.env_values import secret_token
from hopkit.errors import RetrievalError, RetrievalServerError
from hopkit.llm.endpoint_pool import EndpointPool, split_base_urls
from hopkit.llm.http_clients import ClientPool
from hopkit.llm.retry import TransientError, parse_retry_after, retry_call
from hopkit.records import Paragraph, ScoredParagraph
from hopkit.remote_retrieval.wire import (HEALTH_PATH, IDENTITY_HEADER, PATHS, Protocol, QueryItem, ServedHit,
                                          hopkit_request, search_r1_request, title_and_text)

#: The environment variable a client reads its bearer token from when its config gives none.
TOKEN_VARIABLE = "HOPKIT_RETRIEVAL_TOKEN"

#: Maps a server's documents to paragraphs of the local store (their ids the store's, or stand-ins).
Matcher = Callable[[Sequence[ServedHit]], list[Paragraph]]


@dataclass(frozen=True)
class ServerIdentity:
    """What a server's ``/health`` says it serves (``None`` fields: a server without ``/health``)."""

    fingerprint: str | None
    retriever: str | None
    corpus: str | None = None
    passages: int | None = None


def token_from_environment() -> str | None:
    """``$HOPKIT_RETRIEVAL_TOKEN``, checked; None when unset or empty."""
    value = environment.variable(TOKEN_VARIABLE) or ""
    return secret_token(TOKEN_VARIABLE, value, expects="the token alone") if value else None


class RemoteRetriever:
    """A retriever that asks a retrieval server (or a farm of them) over HTTP.

    Args:
        urls: the servers' base URLs (``http://host:port``).
        protocol: ``hopkit`` (paragraph ids, exclusions, title restriction) or ``search-r1``.
        matcher: maps the documents a server answers with to the local store's paragraphs (None: take the
            server's paragraph ids as they are; a ``search-r1`` reply has none, so it then gets stand-ins).
        token: the bearer token (None: ``$HOPKIT_RETRIEVAL_TOKEN`` at each call, or none).
        expected_identity: the retriever identity the run began with; a reply naming another fails.
        timeout: seconds to connect and for each read.
        deadline: seconds one request may take, connect to last byte.
        max_retries: retries after the first attempt.
        backoff: seconds before the first retry, doubled for each further one.
    """

    def __init__(self, urls: Sequence[str], protocol: Protocol, *, matcher: Matcher | None = None,
                 token: str | None = None, expected_identity: str | None = None, timeout: float = 30.0,
                 deadline: float | None = None, max_retries: int = 4, backoff: float = 1.0) -> None:
        self.base_urls = split_base_urls(list(urls))
        self.protocol: Protocol = protocol
        self.matcher = matcher
        self.token = token
        self.expected_identity = expected_identity
        self.timeout = timeout
        self.deadline = deadline if deadline is not None else 3 * timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.urls = tuple(base.rstrip("/") + PATHS[protocol] for base in self.base_urls)
        self.label = self.urls[0] if len(self.urls) == 1 else f"{len(self.urls)} retrieval servers"
        self.endpoints = EndpointPool(self.urls)
        self._clients = ClientPool(timeout)

    def retrieve(self, query: str, k: int, exclude: Collection[int] = frozenset(),
                 titles: Collection[str] | None = None) -> list[ScoredParagraph]:
        """The server's ``k`` best paragraphs for ``query``, best first.

        Raises:
            RetrievalError: a negative ``k``, a title restriction over ``search-r1``, a request the server refused
                as sent (400, 401, 413), or a reply that is not the shape asked for.
            RetrievalServerError: the servers kept failing past the retries, or answer with another retriever.
        """
        if k < 0:
            raise RetrievalError(f"k must be >= 0, got {k}")
        if k == 0:
            return []
        excluded = frozenset(exclude)
        if self.protocol == "search-r1":
            if titles is not None:
                raise RetrievalError("a search-r1 retrieval server cannot restrict results to titles; serve the index "
                                     "with `hopkit serve-retrieval` and use protocol: hopkit")
            body = search_r1_request([query], k + len(excluded))
        else:
            body = hopkit_request([QueryItem(query, k, tuple(sorted(excluded)),
                                             None if titles is None else tuple(sorted(set(titles))))])
        data = retry_call(lambda: self.endpoints.call(lambda url: self._post(url, body))[1], url=self.label,
                          max_retries=self.max_retries, backoff=self.backoff, error=RetrievalServerError)
        hits = self._hits(data)
        paragraphs = self.matcher(hits) if self.matcher is not None else [
            Paragraph(hit.id, hit.title, hit.text) for hit in hits]
        found = [ScoredParagraph(paragraph, hit.score) for paragraph, hit in zip(paragraphs, hits)
                 if paragraph.id not in excluded]
        return found[:k]

    def health(self, base_url: str) -> ServerIdentity:
        """What the server at ``base_url`` serves, from its ``/health`` (a Search-R1 server has none: all None).

        Raises:
            RetrievalServerError: the server cannot be reached or answers with an error past the retries.
        """
        url = base_url.rstrip("/") + HEALTH_PATH
        try:
            data = retry_call(lambda: self._exchange("GET", url), url=url, max_retries=self.max_retries,
                              backoff=self.backoff, error=RetrievalServerError)
        except _NoHealth:
            return ServerIdentity(None, None)
        corpus = data.get("corpus") if isinstance(data.get("corpus"), dict) else {}
        retriever = data.get("retriever") if isinstance(data.get("retriever"), dict) else {}
        return ServerIdentity(corpus.get("fingerprint"), retriever.get("identity"), corpus.get("name"),
                              corpus.get("passages"))

    def close(self) -> None:
        self._clients.close()

    def _headers(self) -> dict[str, str]:
        token = self.token if self.token is not None else token_from_environment()
        return {"Authorization": f"Bearer {token}"} if token else {}

    def _post(self, url: str, body: dict[str, Any]) -> dict[str, Any]:
        return self._exchange("POST", url, body)

    def _exchange(self, method: str, url: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        """One request to one server; raises TransientError for what is worth retrying."""
        started = time.monotonic()
        try:
            with self._clients.stream(method, url, deadline=self.deadline, headers=self._headers(),
                                      **({} if body is None else {"json": body})) as response:
                reply = response.read()
        except httpx.TimeoutException as exc:
            raise TransientError(f"no answer within timeout={self.timeout:g}s ({type(exc).__name__})") from exc
        except httpx.TransportError as exc:
            raise TransientError(f"connection failed ({type(exc).__name__}: {exc})") from exc
        status = response.status_code
        message = reply[:300].decode("utf-8", "replace")
        if status == 404 and method == "GET":
            raise _NoHealth(url)
        if status in (429, 503) or status >= 500:
            raise TransientError(f"HTTP {status} after {time.monotonic() - started:.1f}s: {message}",
                                 retry_after=parse_retry_after(response.headers.get("retry-after")))
        if status >= 400:
            hint = " (give the server's token: token: in the config or $HOPKIT_RETRIEVAL_TOKEN)" if status == 401 else ""
            raise RetrievalError(f"{url} refused the request with HTTP {status}: {message}{hint}")
        named = response.headers.get(IDENTITY_HEADER)
        if self.expected_identity is not None and named is not None and named != self.expected_identity:
            raise RetrievalServerError(f"{url} now serves retriever {named}, not {self.expected_identity} that this "
                                       "run began with (the server was restarted on another index or config); a "
                                       "rerun records the new retriever in its run id")
        try:
            data = json.loads(reply)
        except ValueError as exc:
            raise RetrievalError(f"{url} answered with a body that is not JSON: {message!r}") from exc
        if not isinstance(data, dict):
            raise RetrievalError(f"{url} answered with JSON that is not an object: {message!r}")
        return data

    def _hits(self, data: dict[str, Any]) -> list[ServedHit]:
        try:
            found = data["result"][0]
            if self.protocol == "search-r1":
                return [_search_r1_hit(item) for item in found]
            return [ServedHit(int(item["id"]), str(item.get("source_id", item["id"])), str(item["title"]),
                              str(item["text"]), _float(item.get("score"))) for item in found]
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise RetrievalError(f"{self.label} answered without the {self.protocol} result shape "
                                 f"({type(exc).__name__}: {exc}): {str(data)[:300]}") from exc


class _NoHealth(Exception):
    """A server answered 404 to ``GET /health`` (Search-R1's own server has none)."""


def _float(value: Any) -> float:
    return float("-inf") if value is None else float(value)


def _search_r1_hit(item: Any) -> ServedHit:
    document = item["document"] if "document" in item else item  # without return_scores: the document alone
    title, text = title_and_text(str(document["contents"]))
    return ServedHit(-1, str(document.get("id", "")), title, text, _float(item.get("score")))
