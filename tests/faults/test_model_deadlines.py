"""A model server that trickles its reply or never ends it, alone and in a farm (issue 48, item 2).

``timeout`` bounds each read, not the request: a server sending one valid byte every 5 s
held a question for minutes per attempt, and an endless chunked body grew the process
without end. A request now has a deadline and a size cap, and a farm moves a request that
passes its deadline to another server. The servers are real loopback HTTP servers.

The deadline was checked only as the body came (issue 70, failure 2): a server sending its
status line and then one header line every 2 s held a question past 240 s, and 2 of 8
questions of a farm for good. It now bounds the whole exchange, connect to last byte.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, TypeVar

import pytest

from hopkit.errors import LLMServerError
from hopkit.llm.openai_compat import OpenAICompatibleLLM
from hopkit.llm.testing_server import Fault, serve_fake_openai
from hopkit.methods.nor.method import NoR
from hopkit.pipelines.runner import run_method

pytestmark = pytest.mark.unit

T = TypeVar("T")
# How long a call under test may run before the test gives up on it (a hang fails instead of hanging the suite).
OUTER_LIMIT = 30.0


def bounded(call: Callable[[], T], limit: float = OUTER_LIMIT) -> T:
    """What ``call`` returns (or raises), run in a thread; a test failure when it runs past ``limit`` seconds
    (the thread ends when the test's servers close)."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # handed back to the test's thread as it is
            outcome["error"] = exc

    thread = threading.Thread(target=run, name="bounded-call", daemon=True)
    thread.start()
    thread.join(limit)
    if thread.is_alive():
        pytest.fail(f"still waiting after {limit:g} s: the deadline did not end the request")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]  # type: ignore[no-any-return]


def test_a_trickling_reply_is_cut_off_at_the_deadline_not_read_for_minutes() -> None:
    with serve_fake_openai(lambda prompt: "Paris " * 40, faults=lambda n, p: Fault("trickle", seconds=0.05)) as server:
        llm = OpenAICompatibleLLM(server.base_url, "m", timeout=0.5, deadline=1.0, max_retries=0)
        started = time.monotonic()
        with pytest.raises(LLMServerError, match=r"no whole reply within deadline=1s"):
            llm.complete("Where?")
        assert time.monotonic() - started < 1.0 + 0.5 + 0.5  # the deadline, at most one read timeout, slack


def test_the_default_deadline_is_a_small_multiple_of_the_read_timeout() -> None:
    assert OpenAICompatibleLLM("http://127.0.0.1:9/v1", "m", timeout=10).deadline == 30
    assert OpenAICompatibleLLM("http://127.0.0.1:9/v1", "m", timeout=10, deadline=12).deadline == 12


def test_an_endless_reply_stops_at_the_size_cap() -> None:
    with serve_fake_openai(["never sent"], faults=[Fault("endless")]) as server:
        llm = OpenAICompatibleLLM(server.base_url, "m", timeout=5, max_reply_bytes=4 << 20, max_retries=0)
        with pytest.raises(LLMServerError, match=r"grew past max_reply_bytes=4,194,304"):
            llm.complete("Where?")


def test_a_reply_announcing_more_than_the_cap_is_not_read() -> None:
    with serve_fake_openai(lambda prompt: "word " * 2000) as server:
        llm = OpenAICompatibleLLM(server.base_url, "m", max_reply_bytes=1000, max_retries=0)
        with pytest.raises(LLMServerError, match=r"announces [\d,]+ bytes, more than max_reply_bytes=1,000"):
            llm.complete("Where?")


def test_a_farm_moves_a_request_past_its_deadline_to_the_healthy_server(toy: Any) -> None:
    """The trickling server held the last questions while the healthy one idled."""
    store, _ = toy.store(8)
    queries = store.queries("toy")
    with serve_fake_openai(toy.town_of) as healthy, \
            serve_fake_openai(toy.town_of, faults=lambda n, p: Fault("trickle", seconds=0.2)) as trickling:
        llm = OpenAICompatibleLLM([trickling.base_url, healthy.base_url], "m", timeout=0.5, deadline=1.0,
                                  max_retries=1, backoff=0.0)
        started = time.monotonic()
        outcome = run_method(NoR(llm), queries, store, toy.spec("farm"), workers=2, progress=False)
        seconds = time.monotonic() - started
    assert (outcome.finished, outcome.failed) == (8, 0)
    assert {toy.question_number(a.prompt) for a in healthy.answered} == set(range(8))
    assert trickling.answered == []  # no trickled reply was ever waited for to its end
    # 8 questions on one healthy server take well under a second; a trickled reply (~250 bytes at 0.2 s a
    # byte) would take 50 s; the trickling server is rested after its first deadline, so few are tried there
    assert seconds < 15, seconds
    toy.check(store.results(outcome.run_id))


def test_a_server_trickling_its_headers_is_cut_off_at_the_deadline() -> None:
    """Each header line came before the read timeout, so the request never ended (issue 70)."""
    with serve_fake_openai(lambda prompt: "Paris", faults=lambda n, p: Fault("trickle_headers", seconds=0.1)) as server:
        llm = OpenAICompatibleLLM(server.base_url, "m", timeout=0.5, deadline=1.0, max_retries=1, backoff=0.0)
        started = time.monotonic()
        with pytest.raises(LLMServerError, match=r"failed 2 time.*no whole reply within deadline=1s \(waiting for "
                                                  r"the status line and headers"):
            bounded(lambda: llm.complete("Where?"))
        seconds = time.monotonic() - started
    assert len(server.requests) == 2
    assert seconds < 2 * 1.0 + 3.0, seconds  # two attempts of the deadline each, and slack for a loaded machine


def test_the_deadline_ends_a_silent_wait_shorter_than_the_read_timeout() -> None:
    """A deadline below ``timeout`` bounds the wait for the first byte too (it was one whole ``timeout``)."""
    with serve_fake_openai(["never sent"], faults=[Fault("hang", seconds=30)]) as server:
        llm = OpenAICompatibleLLM(server.base_url, "m", timeout=20, deadline=1.0, max_retries=0)
        with pytest.raises(LLMServerError, match=r"no whole reply within deadline=1s \(waiting for the status line"):
            bounded(lambda: llm.complete("Where?"), limit=15)


def test_a_farm_with_a_server_trickling_its_headers_answers_every_question(toy: Any) -> None:
    """2 of 8 questions waited for the trickling server's headers for good (issue 70)."""
    store, _ = toy.store(8)
    queries = store.queries("toy")
    with serve_fake_openai(toy.town_of) as healthy, \
            serve_fake_openai(toy.town_of, faults=lambda n, p: Fault("trickle_headers", seconds=0.1)) as trickling:
        llm = OpenAICompatibleLLM([trickling.base_url, healthy.base_url], "m", timeout=0.5, deadline=1.0,
                                  max_retries=1, backoff=0.0)
        outcome = bounded(lambda: run_method(NoR(llm), queries, store, toy.spec("farm"), workers=2, progress=False))
    assert (outcome.finished, outcome.failed) == (8, 0)
    assert {toy.question_number(a.prompt) for a in healthy.answered} == set(range(8))
    assert trickling.requests and trickling.answered == []  # it was tried, and no question waited for it
    toy.check(store.results(outcome.run_id))
