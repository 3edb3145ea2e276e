"""``hopkit serve-retrieval`` as an operator runs it: its own process, SIGTERM, workers, bad options."""

from __future__ import annotations

import json
import signal
import socket
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from hopkit.cli import main
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store
from tests.polling import wait_until
from tests.serving.loopback import SERVE_SECONDS, serve_command, stop

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SEARCH_R1 = {"queries": ["Who directed Ember Tide?"], "topk": 3, "return_scores": True}


def test_serve_then_run_oner_over_it_answers_as_the_in_process_run(store_url: str, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    process, base = serve_command(store_url, "--dataset", "sample", "--retrieval", "bm25")
    try:
        reply = httpx.post(f"{base}/retrieve", json=SEARCH_R1, timeout=SERVE_SECONDS)
        health = httpx.get(f"{base}/health", timeout=SERVE_SECONDS).json()
        (tmp_path / "configs" / "retrieval").mkdir(parents=True)
        (tmp_path / "configs" / "llm").mkdir(parents=True)
        (tmp_path / "configs" / "retrieval" / "remote-local.yaml").write_text(
            f"_target_: hopkit.pipelines.retrieval.remote.RemoteRetrievalPipeline\nname: remote-local\nurl: {base}\n"
            "protocol: hopkit\n")
        (tmp_path / "configs" / "llm" / "answering.yaml").write_text(
            "_target_: tests.cli.answering_model.AnsweringLLM\n")
        for retrieval in ("remote-local", "bm25"):
            assert main(["--db", store_url, "run", "oner", "--dataset", "sample", "--retrieval", retrieval,
                         "--llm", "answering", "--quiet"]) == 0
    finally:
        assert stop(process) == 0
    assert reply.status_code == 200 and 1 <= len(reply.json()["result"][0]) <= 3
    assert reply.json()["result"][0][0]["document"]["contents"].startswith('"Ember Tide"\n')
    assert health["corpus"]["name"] == "sample" and health["retriever"]["config"] == "bm25"
    store = Store(DBConnection(store_url).get_session_factory())
    remote_run, local_run = sorted(store.runs(), key=lambda run: run.config["retrieval"]["kind"] != "remote")
    assert remote_run.config["retrieval"]["retriever"] == health["retriever"]["identity"]
    answers = [{r.query_id: (r.prediction, r.chunk_ids) for r in store.results(run.run_id)}
               for run in (remote_run, local_run)]
    assert answers[0] == answers[1] and len(answers[0]) == 6


def test_sigterm_lets_the_request_in_flight_finish_then_exits(store_url: str) -> None:
    process, base = serve_command(store_url)
    where = urlsplit(base)
    body = json.dumps(SEARCH_R1).encode()
    try:
        with socket.create_connection((where.hostname, where.port), timeout=SERVE_SECONDS) as sock:
            sock.sendall(b"POST /retrieve HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                         b"Content-Length: %d\r\n\r\n" % len(body) + body[:10])
            # the request is in flight once the server has read its head: wait for its queue to show it
            wait_until(lambda: _answers(base), SERVE_SECONDS, "the server to take the request")
            process.send_signal(signal.SIGTERM)
            sock.sendall(body[10:])
            reply = b""
            while chunk := sock.recv(65536):
                reply += chunk
    finally:
        code = process.wait(SERVE_SECONDS)
    assert reply.startswith(b"HTTP/1.1 200 ")
    assert json.loads(reply.split(b"\r\n\r\n", 1)[1])["result"][0]
    assert code == 0


def _answers(base: str) -> bool:
    """Whether the server answers ``/health`` (once it does, it has read the head sent to it before)."""
    try:
        return httpx.get(f"{base}/health", timeout=SERVE_SECONDS).status_code == 200
    except httpx.HTTPError:
        return False


def test_two_workers_answer_on_one_port(store_url: str) -> None:
    process, base = serve_command(store_url, "--workers", "2")
    try:
        wait_until(lambda: _answers(base), SERVE_SECONDS, "the workers to start")
        replies = [httpx.post(f"{base}/retrieve", json=SEARCH_R1, timeout=SERVE_SECONDS) for _ in range(4)]
    finally:
        assert stop(process) == 0
    assert all(reply.status_code == 200 for reply in replies)
    assert len({reply.content for reply in replies}) == 1


@pytest.mark.parametrize(("args", "message"), [
    (["--host", "0.0.0.0"], "serves beyond this machine: give --token-file"),
    (["--token-file", "empty.txt"], "the file is empty"),
    (["--token-file", "missing.txt"], "cannot be read"),
    (["--corpus", "wiki-18", "--dataset", "sample"], "--dataset and --corpus: give one"),
    (["--retrieval", "no-such-config"], "no-such-config"),
])
def test_bad_options_are_one_line_and_exit_code_2(store_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  args: list[str], message: str) -> None:
    (tmp_path / "empty.txt").write_text("\n")
    assert main(["--db", store_url, "serve-retrieval", "--port", "0", *args]) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1 and "Traceback" not in error
