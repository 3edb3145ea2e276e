"""What a retrieval server refuses, and how: token, malformed bodies, caps, slow clients, overload."""

from __future__ import annotations

import json
import socket
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import httpx
import pytest

from hopkit.remote_retrieval.wire import Limits
from hopkit.serving.options import ServerOptions
from hopkit.serving.served import ServedRetriever
from tests.polling import wait_until
from tests.serving.loopback import SERVE_SECONDS, GatedRetriever, serving
from tests.serving.test_search_r1_shape import raw_post

pytestmark = pytest.mark.integration

GOOD = json.dumps({"queries": ["Ember Tide"], "topk": 2, "return_scores": True}).encode()


def test_health_names_the_corpus_the_retriever_and_the_version(bm25: ServedRetriever) -> None:
    with serving(bm25) as base:
        reply = httpx.get(f"{base}/health", timeout=30)
    health = reply.json()
    assert reply.status_code == 200
    assert health["corpus"] == {"name": "sample", "dataset": "sample", "passages": bm25.passages,
                                "fingerprint": bm25.fingerprint}
    assert health["retriever"]["config"] == "bm25" and health["retriever"]["identity"] == bm25.identity
    assert health["retriever"]["spec"]["kind"] == "bm25"
    assert health["hopkit_version"]
    assert reply.headers["x-hopkit-retriever"] == bm25.identity


def test_a_missing_or_wrong_token_is_refused_and_the_right_one_served(bm25: ServedRetriever) -> None:
    with serving(bm25, ServerOptions(token="s3cret-token")) as base:
        missing = raw_post(base, "/retrieve", GOOD)
        wrong = raw_post(base, "/retrieve", GOOD, {"Authorization": "Bearer s3cret-tokem"})
        health = httpx.get(f"{base}/health", timeout=30)
        right = raw_post(base, "/retrieve", GOOD, {"Authorization": "Bearer s3cret-token"})
    assert missing[0] == wrong[0] == health.status_code == 401
    assert missing[1]["www-authenticate"] == "Bearer"
    assert right[0] == 200


@pytest.mark.parametrize(("body", "field"), [
    (b"{not json", "body"),
    (b"[1, 2]", "body"),
    (b'{"topk": 3}', "queries"),
    (b'{"queries": "one string"}', "queries"),
    (b'{"queries": ["fine", 7]}', "queries[1]"),
    (b'{"queries": ["q"], "topk": "3"}', "topk"),
    (b'{"queries": ["q"], "topk": true}', "topk"),
    (b'{"queries": ["q"], "topk": -2}', "topk"),
    (b'{"queries": ["q"], "return_scores": "yes"}', "return_scores"),
])
def test_a_malformed_body_is_answered_400_naming_the_field(bm25: ServedRetriever, body: bytes, field: str) -> None:
    with serving(bm25) as base:
        status, _, reply = raw_post(base, "/retrieve", body)
    assert status == 400
    assert json.loads(reply)["field"] == field
    assert f"field {field!r}" in json.loads(reply)["error"]


@pytest.mark.parametrize(("body", "field"), [
    (b'{"queries": [{"text": "q"}]}', "queries[0].k"),
    (b'{"queries": [{"text": "q", "k": 2, "exclude": ["x"]}]}', "queries[0].exclude[0]"),
    (b'{"queries": [{"text": "q", "k": 2, "titles": "T"}]}', "queries[0].titles"),
])
def test_hopkit_requests_name_the_field_too(bm25: ServedRetriever, body: bytes, field: str) -> None:
    with serving(bm25) as base:
        status, _, reply = raw_post(base, "/hopkit/retrieve", body)
    assert (status, json.loads(reply)["field"]) == (400, field)


def test_the_caps_on_queries_topk_length_and_body_are_kept(bm25: ServedRetriever) -> None:
    limits = Limits(max_queries=2, max_topk=5, max_query_chars=20, max_body_bytes=400)
    with serving(bm25, ServerOptions(limits=limits)) as base:
        many = raw_post(base, "/retrieve", json.dumps({"queries": ["a", "b", "c"]}).encode())
        deep = raw_post(base, "/retrieve", json.dumps({"queries": ["a"], "topk": 6}).encode())
        long = raw_post(base, "/retrieve", json.dumps({"queries": ["x" * 21]}).encode())
        large = raw_post(base, "/retrieve", json.dumps({"queries": ["a"], "pad": "x" * 500}).encode())
        fine = raw_post(base, "/retrieve", json.dumps({"queries": ["Ember", "Tide"], "topk": 5}).encode())
    assert [many[0], deep[0], long[0], large[0], fine[0]] == [400, 400, 400, 413, 200]
    assert json.loads(many[2])["field"] == "queries" and json.loads(deep[2])["field"] == "topk"
    assert json.loads(long[2])["field"] == "queries[0]"


def _connect(base: str) -> socket.socket:
    where = urlsplit(base)
    return socket.create_connection((where.hostname, where.port), timeout=SERVE_SECONDS)


def _read_all(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def test_a_client_that_never_finishes_its_headers_is_cut_off_at_the_deadline(bm25: ServedRetriever) -> None:
    with serving(bm25, ServerOptions(read_deadline=0.5)) as base, _connect(base) as sock:
        sock.sendall(b"POST /retrieve HTTP/1.1\r\nHost: x\r\nContent-Type: appl")
        assert _read_all(sock) == b""  # the server closed the connection: recv returns end of stream


def test_a_client_that_never_finishes_its_body_is_answered_408(bm25: ServedRetriever) -> None:
    with serving(bm25, ServerOptions(read_deadline=0.5)) as base, _connect(base) as sock:
        sock.sendall(b"POST /retrieve HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"queries\": ")
        reply = _read_all(sock)
    assert reply.startswith(b"HTTP/1.1 408 ")


def test_overload_is_answered_503_with_retry_after_and_the_server_goes_on(bm25: ServedRetriever) -> None:
    gated = GatedRetriever(bm25.retriever)
    bm25.retriever = gated
    options = ServerOptions(max_wait=0.0, max_batch=1, max_queue=2, retry_after=3)
    with serving(bm25, options) as base, ThreadPoolExecutor(4) as pool:
        first = pool.submit(raw_post, base, "/retrieve", GOOD)  # taken: its search waits at the gate
        assert gated.entered.wait(SERVE_SECONDS)
        waiting = [pool.submit(raw_post, base, "/retrieve", GOOD) for _ in range(2)]  # the queue's two places
        wait_until(lambda: _queued(base) == 2, SERVE_SECONDS, "two requests to wait in the queue")
        refused = raw_post(base, "/retrieve", GOOD)
        gated.gate.set()
        answered = [first.result(SERVE_SECONDS), *(w.result(SERVE_SECONDS) for w in waiting)]
        after = raw_post(base, "/retrieve", GOOD)
    assert refused[0] == 503 and refused[1]["retry-after"] == "3"
    assert [reply[0] for reply in answered] == [200, 200, 200]
    assert after[0] == 200


def _queued(base: str) -> int:
    """How many queries wait in the server's queue, as its /health says."""
    return int(httpx.get(f"{base}/health", timeout=SERVE_SECONDS).json()["batching"]["waiting"])


def test_the_listening_socket_says_it_is_tcp_so_asyncio_sends_replies_at_once() -> None:
    """asyncio sets TCP_NODELAY only on sockets whose protocol is IPPROTO_TCP; without it every reply waited for
    the client's delayed acknowledgement (about 40 ms a request on Linux)."""
    from hopkit.serving.server import bind

    with bind("127.0.0.1", 0) as sock:
        assert sock.proto == socket.IPPROTO_TCP
