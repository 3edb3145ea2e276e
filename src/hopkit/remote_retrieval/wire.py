"""What goes over the wire: the two request and response shapes a retrieval server speaks, read and written.

``search-r1`` is the shape of Search-R1's ``search_r1/search/retrieval_server.py`` (commit a14dc3a4),
which AutoRefine, R1-Searcher, ReCall and verl's search tool speak too::

    POST /retrieve  {"queries": ["..."], "topk": 3, "return_scores": true}
    200             {"result": [[{"document": {"id": "0", "contents": "\\"Title\\"\\ntext"}, "score": 0.8}, ...], ...]}

``topk`` may be left out or null (the server's default); without ``return_scores`` each list holds the
documents alone. ``hopkit`` is what hopkit's methods ask of a retriever (paragraph ids, titles, ids to
exclude, a title restriction)::

    POST /hopkit/retrieve  {"queries": [{"text": "...", "k": 5, "exclude": [3], "titles": null}]}
    200                    {"result": [[{"id": 7, "source_id": "7", "title": "...", "text": "...", "score": 1.5}]]}

The server and the client both read and write through this module, so the two ends cannot drift.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Literal, Mapping, Sequence

from hopkit.errors import DataError

Protocol = Literal["search-r1", "hopkit"]
PROTOCOLS: tuple[Protocol, ...] = ("search-r1", "hopkit")
SEARCH_R1_PATH = "/retrieve"
HOPKIT_PATH = "/hopkit/retrieve"
HEALTH_PATH = "/health"
PATHS: dict[str, str] = {"search-r1": SEARCH_R1_PATH, "hopkit": HOPKIT_PATH}
#: The response header naming the retriever that answered (its identity, as /health gives it).
IDENTITY_HEADER = "x-hopkit-retriever"


@dataclass(frozen=True)
class Limits:
    """What one request may ask (each over its cap is answered 400, the body over its cap 413).

    Attributes:
        max_queries: queries in one request.
        max_query_chars: characters in one query.
        max_topk: ``topk`` / ``k`` of one query.
        max_exclude: ids to exclude (and titles to restrict to) in one query.
        max_body_bytes: bytes of one request's body.
        default_topk: what a Search-R1 request without ``topk`` gets (Search-R1's server: ``--topk 3``).
    """

    max_queries: int = 256
    max_query_chars: int = 4096
    max_topk: int = 100
    max_exclude: int = 1000
    max_body_bytes: int = 1024 * 1024
    default_topk: int = 3


@dataclass(frozen=True)
class QueryItem:
    """One query as a retriever takes it."""

    text: str
    k: int
    exclude: tuple[int, ...] = ()
    titles: tuple[str, ...] | None = None


@dataclass(frozen=True)
class ServedHit:
    """One paragraph a server answers with: the store's id, the source's id for it, title, text and score."""

    id: int
    source_id: str
    title: str
    text: str
    score: float


@dataclass(frozen=True)
class ParsedRequest:
    """A request read: its queries and whether the Search-R1 answer carries scores."""

    items: tuple[QueryItem, ...]
    return_scores: bool = True


def _bad(field: str, message: str) -> DataError:
    return DataError(message, field=field)


def _json_object(body: bytes) -> Mapping[str, Any]:
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise _bad("body", f"not JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise _bad("body", f"must be a JSON object, got {type(data).__name__}")
    return data


def _int(field: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _bad(field, f"must be an integer, got {json.dumps(value)[:40]}")
    if not low <= value <= high:
        raise _bad(field, f"must be between {low} and {high}, got {value}")
    return value


def _text(field: str, value: Any, limits: Limits) -> str:
    if not isinstance(value, str):
        raise _bad(field, f"must be a string, got {type(value).__name__}")
    if len(value) > limits.max_query_chars:
        raise _bad(field, f"is {len(value):,} characters, more than this server's cap of {limits.max_query_chars:,}")
    return value


def _list(field: str, value: Any, cap: int, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise _bad(field, f"must be a list of {what}, got {type(value).__name__}")
    if len(value) > cap:
        raise _bad(field, f"holds {len(value):,} {what}, more than this server's cap of {cap:,}")
    return value


def read_search_r1(body: bytes, limits: Limits) -> ParsedRequest:
    """A Search-R1 request. Fields other than these three are ignored, as Search-R1's pydantic model does.

    Raises:
        DataError: naming the field that is missing, of the wrong type or over its cap.
    """
    data = _json_object(body)
    if "queries" not in data:
        raise _bad("queries", "missing (a list of query strings)")
    queries = _list("queries", data["queries"], limits.max_queries, "queries")
    texts = [_text(f"queries[{n}]", query, limits) for n, query in enumerate(queries)]
    topk = data.get("topk")
    k = limits.default_topk if not topk else _int("topk", topk, 1, limits.max_topk)  # 0 and null: the default
    scores = data.get("return_scores", False)
    if not isinstance(scores, bool):
        raise _bad("return_scores", f"must be true or false, got {json.dumps(scores)[:40]}")
    return ParsedRequest(tuple(QueryItem(text, k) for text in texts), scores)


def read_hopkit(body: bytes, limits: Limits) -> ParsedRequest:
    """A hopkit request.

    Raises:
        DataError: naming the field that is missing, of the wrong type or over its cap.
    """
    data = _json_object(body)
    if "queries" not in data:
        raise _bad("queries", "missing (a list of {text, k, exclude, titles} objects)")
    items = []
    for n, query in enumerate(_list("queries", data["queries"], limits.max_queries, "queries")):
        where = f"queries[{n}]"
        if not isinstance(query, dict):
            raise _bad(where, f"must be an object with text and k, got {type(query).__name__}")
        if "text" not in query or "k" not in query:
            raise _bad(f"{where}.{'text' if 'text' not in query else 'k'}", "missing")
        exclude = _list(f"{where}.exclude", query.get("exclude", []), limits.max_exclude, "ids")
        ids = tuple(_int(f"{where}.exclude[{m}]", value, -2**63, 2**63 - 1) for m, value in enumerate(exclude))
        titles = query.get("titles")
        if titles is not None:
            titles = tuple(_text(f"{where}.titles[{m}]", title, limits) for m, title in
                           enumerate(_list(f"{where}.titles", titles, limits.max_exclude, "titles")))
        items.append(QueryItem(_text(f"{where}.text", query["text"], limits),
                               _int(f"{where}.k", query["k"], 0, limits.max_topk), ids, titles))
    return ParsedRequest(tuple(items))


def search_r1_contents(title: str, text: str) -> str:
    """A passage as wiki-18's ``contents`` lays it out: the title in double quotes on the first line, then the text."""
    return f'"{title}"\n{text}'


def title_and_text(contents: str) -> tuple[str, str]:
    """A Search-R1 ``contents`` split as its clients split it: the first line without its quotes, the rest."""
    first, _, rest = contents.partition("\n")
    return first.strip('"'), rest


def _score(value: float) -> float | None:
    return value if math.isfinite(value) else None  # JSON has no infinity; a title-restricted miss may score -inf


def search_r1_result(hits: Sequence[Sequence[ServedHit]], return_scores: bool) -> dict[str, Any]:
    """The Search-R1 response body, keys in the order Search-R1's server writes them."""
    result = []
    for found in hits:
        documents = [{"id": hit.source_id, "contents": search_r1_contents(hit.title, hit.text)} for hit in found]
        if return_scores:
            result.append([{"document": document, "score": _score(hit.score)} for document, hit in zip(documents, found)])
        else:
            result.append(documents)
    return {"result": result}


def hopkit_result(hits: Sequence[Sequence[ServedHit]]) -> dict[str, Any]:
    """The hopkit response body."""
    return {"result": [[{"id": hit.id, "source_id": hit.source_id, "title": hit.title, "text": hit.text,
                         "score": _score(hit.score)} for hit in found] for found in hits]}


def hopkit_request(items: Sequence[QueryItem]) -> dict[str, Any]:
    """The hopkit request body for ``items``."""
    return {"queries": [{"text": item.text, "k": item.k, "exclude": list(item.exclude),
                         "titles": None if item.titles is None else list(item.titles)} for item in items]}


def search_r1_request(queries: Sequence[str], topk: int) -> dict[str, Any]:
    """A Search-R1 request body as Search-R1's own rollout code sends it."""
    return {"queries": list(queries), "topk": topk, "return_scores": True}
