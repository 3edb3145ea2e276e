"""A model server that trickles its reply or never ends it, alone and in a farm (issue 48, item 2).

``timeout`` bounds each read, not the request: a server sending one valid byte every 5 s
held a question for minutes per attempt, and an endless chunked body grew the process
without end. A request now has a deadline and a size cap, and a farm moves a request that
passes its deadline to another server. The servers are real loopback HTTP servers.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from hopkit.errors import LLMServerError
from hopkit.llm.openai_compat import OpenAICompatibleLLM
from hopkit.llm.testing_server import Fault, serve_fake_openai
from hopkit.methods.nor.method import NoR
from hopkit.runner import run_method

pytestmark = pytest.mark.unit


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
