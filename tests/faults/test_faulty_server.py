"""A model server that errs, hangs, drops, and answers malformed, null, empty, filtered or truncated.

Each fault hits one question of a multi-worker run; that question must be stored as
failed with an error that says what happened, the others as answered, nothing as a
successful empty answer; once the server is healthy a resume answers exactly the
failed question and every question is stored once.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

from hopkit.errors import LLMServerError
from hopkit.llm.cache import CachedLLM
from hopkit.llm.openai_compat import OpenAICompatibleLLM
from hopkit.llm.testing_server import FAULT_KINDS, Fault, serve_fake_openai
from hopkit.methods.nor.method import NoR
from hopkit.pipelines.runner import run_method

pytestmark = pytest.mark.unit

BROKEN = 3  # the question the faults hit


def backend(base_url: str) -> OpenAICompatibleLLM:
    """The real HTTP backend, with a short timeout and one quick retry so faults cost little time."""
    return OpenAICompatibleLLM(base_url, "fake-model", timeout=0.4, max_retries=1, backoff=0.0,
                               max_reply_bytes=1 << 20)


FAULTS: list[tuple[Fault, str]] = [
    (Fault("status", status=500), r"LLMServerError: .* failed 2 time\(s\).*HTTP 500"),
    (Fault("status", status=429), r"LLMServerError: .*HTTP 429"),
    # issue 70: a refusal a rerun repeats (a prompt longer than the context) was a plain LLMError, called retryable
    (Fault("status", status=400), r"RequestRefusedError: .*refused the request with HTTP 400"),
    (Fault("hang", seconds=5), r"LLMServerError: .*no answer within timeout=0\.4s"),
    (Fault("drop"), r"LLMServerError: .*connection failed \(RemoteProtocolError"),
    (Fault("truncated_body"), r"LLMServerError: .*connection failed \(RemoteProtocolError"),
    (Fault("malformed"), r"LLMError: .*body that is not JSON"),
    (Fault("null"), r"LLMError: .*answered with no text \(choices\[0\]\.text is None"),
    (Fault("content_filter"), r"LLMError: .*withheld the answer \(finish_reason 'content_filter'"),
    (Fault("empty"), r"EmptyAnswerError: the model gave no answer to question q3"),
    (Fault("length"), r"EmptyAnswerError: the model gave no answer to question q3"),  # one word cut to none
    # issue 48: a valid reply one byte per 0.1 s (each read well within the 0.4 s timeout) held a question for
    # minutes; an endless chunked body grew the process without end
    (Fault("trickle", seconds=0.1), r"LLMServerError: .*no whole reply within deadline=1\.2s"),
    (Fault("endless"), r"LLMServerError: .*the reply grew past max_reply_bytes=1,048,576 without ending"),
    # issue 70: a status line and then a header line per 0.1 s held a question for good
    (Fault("trickle_headers", seconds=0.1),
     r"LLMServerError: .*no whole reply within deadline=1\.2s \(waiting for the status line and headers"),
]


def test_every_fault_kind_is_covered() -> None:
    assert {fault.kind for fault, _ in FAULTS} == set(FAULT_KINDS) - {"delay"}


@pytest.mark.parametrize(("fault", "error"), FAULTS, ids=[f"status-{f.status}" if f.kind == "status" else f.kind for f, _ in FAULTS])
def test_a_fault_fails_only_its_question_and_a_resume_answers_it(toy: Any, fault: Fault, error: str) -> None:
    store, _ = toy.store(8)
    queries = store.queries("toy")
    broken = {"on": True}

    def schedule(number: int, prompt: str) -> Fault | None:
        return fault if broken["on"] and toy.question_number(prompt) == BROKEN else None

    spec = toy.spec()
    with serve_fake_openai(toy.town_of, faults=schedule) as server:
        outcome = run_method(NoR(backend(server.base_url)), queries, store, spec, workers=3, progress=False)
        results = {r.query_id: r for r in store.results(spec.run_id)}
        assert (outcome.finished, outcome.failed) == (7, 1)
        assert re.search(error, results["q3"].error or ""), results["q3"].error
        assert all(results[q.id].prediction == f"Ville{q.id[1:]}" for q in queries if q.id != "q3")
        toy.check(list(results.values()))

        broken["on"] = False
        asked_before = len(server.requests)
        again = run_method(NoR(backend(server.base_url)), queries, store, spec, workers=3, progress=False)
        resumed_prompts = [r.prompt for r in server.requests[asked_before:]]
    assert (again.already_done, again.finished, again.failed) == (7, 1, 0)
    assert [toy.question_number(p) for p in resumed_prompts] == [BROKEN]  # nothing finished is asked again
    final = store.results(spec.run_id)
    toy.check(final)
    assert sorted(r.query_id for r in final if r.error is None) == sorted(q.id for q in queries)


def test_a_storm_of_random_faults_with_several_workers_stores_only_what_the_server_said(
        toy: Any) -> None:
    """Seeded random faults of every kind on 30% of requests; runs are repeated until all are answered."""
    store, _ = toy.store(24)
    queries = store.queries("toy")
    rng = random.Random(20261123)
    kinds = [fault for fault, _ in FAULTS] + [Fault("delay", seconds=0.05)]
    storm = {"on": True}

    def schedule(number: int, prompt: str) -> Fault | None:
        if not storm["on"] or rng.random() > 0.3:
            return None
        fault = rng.choice(kinds)
        return Fault("hang", seconds=1.0) if fault.kind == "hang" else fault

    spec = toy.spec("storm")
    with serve_fake_openai(toy.town_of, faults=schedule) as server:
        for attempt in range(8):
            storm["on"] = attempt < 4
            try:
                run_method(NoR(backend(server.base_url)), queries, store, spec, workers=4, progress=False)
            except LLMServerError:
                pass  # three server failures in a row stop a run; what finished is stored
            results = store.results(spec.run_id)
            toy.check(results)
            sent: dict[int, set[str | None]] = {}
            for answer in server.answered:  # a question retried after a hang or a fault is answered again
                sent.setdefault(toy.question_number(answer.prompt), set()).add(answer.text)
            for result in results:
                if result.error is None:  # an answer stored is one the server sent for that question
                    assert result.prediction in sent[int(result.query_id[1:])]
                    assert result.prediction == f"Ville{result.query_id[1:]}"
            if len(store.finished_query_ids(spec.run_id)) == len(queries):
                break
    assert store.finished_query_ids(spec.run_id) == {q.id for q in queries}
    assert attempt >= 1  # the storm did fail some questions on the first pass


@pytest.mark.parametrize("damage", ["corrupt", "delete"])
def test_a_broken_llm_cache_fails_no_question(toy: Any, tmp_path: Path, damage: str) -> None:
    """Issue item 10: a corrupted cache failed every question; one deleted mid-run failed the rest."""
    store, _ = toy.store(8)
    queries = store.queries("toy")
    cache = tmp_path / "llm-cache.sqlite"
    if damage == "corrupt":
        cache.write_bytes(b"\x00garbage, not SQLite" * 200)

    def model(prompt: str) -> str:
        if damage == "delete" and toy.question_number(prompt) == 4:
            for part in tmp_path.glob("llm-cache.sqlite*"):
                part.unlink()  # mid-run, while the other workers use the cache
        return toy.town_of(prompt)

    spec = toy.spec(f"cache-{damage}")
    with serve_fake_openai(model) as server:
        llm = CachedLLM(backend(server.base_url), cache)
        outcome = run_method(NoR(llm), queries, store, spec, workers=3, progress=False)
    assert (outcome.finished, outcome.failed) == (8, 0), [r.error for r in store.results(spec.run_id) if r.error]
    assert llm.bypassed is None and len(llm) >= 1  # a working cache again
    toy.check(store.results(spec.run_id))
