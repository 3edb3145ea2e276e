"""Search-R1's ``POST /retrieve``, as its authors' server answers it and as its clients call it.

The shape pinned here is read from PeterGriffinJin/Search-R1 at commit a14dc3a4:
``search_r1/search/retrieval_server.py`` declares the request as ``QueryRequest(queries: List[str],
topk: Optional[int] = None, return_scores: bool = False)`` (a falsy topk takes the server's ``--topk``,
3 by default) and answers ``{"result": [...]}``, one list per query, of ``{"document": doc, "score": s}``
with scores, of ``doc`` alone without; a document of wiki-18 is ``{"id": ..., "contents": '"Title"\\ntext'}``.
``search_r1/llm_agent/generation.py`` posts ``{"queries": ..., "topk": ..., "return_scores": True}`` with
``requests.post(url, json=payload).json()`` and reads ``doc_item['document']['contents']``, the title its
first line. FastAPI writes the JSON compactly (``separators=(",", ":")``, ``ensure_ascii=False``).
"""

from __future__ import annotations

import http.client
import json
from urllib.parse import urlsplit

import pytest
import requests

from hopkit.serving.served import ServedRetriever
from tests.serving.loopback import serving

pytestmark = pytest.mark.integration

QUERIES = ["Who directed Ember Tide?", "Which river runs through Marrowick?"]


def fastapi_bytes(value: object) -> bytes:
    """The bytes FastAPI's default JSON response writes for ``value``."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")).encode("utf-8")


def expected_result(served: ServedRetriever, queries: list[str], topk: int, scores: bool = True) -> object:
    result = []
    for query in queries:
        hits = served.retriever.retrieve(query, topk)
        documents = [{"id": str(hit.id), "contents": f'"{hit.paragraph.title}"\n{hit.paragraph.text}'} for hit in hits]
        result.append([{"document": d, "score": hit.score} for d, hit in zip(documents, hits)] if scores else documents)
    return {"result": result}


def raw_post(base: str, path: str, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    where = urlsplit(base)
    connection = http.client.HTTPConnection(where.hostname, where.port, timeout=30)
    try:
        connection.request("POST", path, body=body, headers={"Content-Type": "application/json", **(headers or {})})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def test_the_documented_request_gets_the_documented_response_byte_for_byte(bm25: ServedRetriever) -> None:
    request = b'{"queries": ["Who directed Ember Tide?", "Which river runs through Marrowick?"], "topk": 3, ' \
              b'"return_scores": true}'
    assert json.loads(request) == {"queries": QUERIES, "topk": 3, "return_scores": True}
    with serving(bm25) as base:
        status, headers, body = raw_post(base, "/retrieve", request)
    assert status == 200
    assert headers["content-type"] == "application/json"
    assert body == fastapi_bytes(expected_result(bm25, QUERIES, 3))
    first = json.loads(body)["result"][0][0]
    assert list(first) == ["document", "score"] and list(first["document"]) == ["id", "contents"]


def test_a_client_written_as_search_r1_writes_its_own_gets_its_documents(bm25: ServedRetriever) -> None:
    with serving(bm25) as base:
        payload = {"queries": QUERIES, "topk": 2, "return_scores": True}
        results = requests.post(f"{base}/retrieve", json=payload, timeout=30).json()["result"]
    assert len(results) == 2 and all(len(found) == 2 for found in results)
    titles = [item["document"]["contents"].split("\n")[0].strip('"') for item in results[0]]
    assert titles[0] == "Ember Tide"
    text = "\n".join(results[0][0]["document"]["contents"].split("\n")[1:])
    assert "Ansel Morvath" in text


@pytest.mark.parametrize("topk", [None, 0, "absent"])
def test_no_topk_takes_the_server_default_of_three(bm25: ServedRetriever, topk: object) -> None:
    payload: dict[str, object] = {"queries": QUERIES[:1], "return_scores": True}
    if topk != "absent":
        payload["topk"] = topk
    with serving(bm25) as base:
        status, _, body = raw_post(base, "/retrieve", json.dumps(payload).encode())
    assert status == 200
    assert body == fastapi_bytes(expected_result(bm25, QUERIES[:1], 3))


def test_without_return_scores_each_list_holds_the_documents_alone(bm25: ServedRetriever) -> None:
    with serving(bm25) as base:
        status, _, body = raw_post(base, "/retrieve", json.dumps({"queries": QUERIES, "topk": 2}).encode())
    assert status == 200
    assert body == fastapi_bytes(expected_result(bm25, QUERIES, 2, scores=False))
