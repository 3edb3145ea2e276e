"""Every method's parsers against hostile model output (issue 48, "fuzz, in general").

A model reply is untrusted text. Each method reads numbers (confidences, scores, step and
query numbers), tags (``[Query 99999999999999999999]``, ``<answer>``, ``Action 7:``) and
citations (``[12345678901234567890]``, ``Passage -1``) out of it. Fed replies with extreme
lengths and values, and token log-probabilities that are NaN or infinite, every method of the
registry must answer or fail the question with one of hopkit's own errors, never a bare
``IndexError``, ``OverflowError``, ``ValueError`` or ``RecursionError``, and report only
paragraph ids of its corpus. (It found one: FLARE raised ``OverflowError: math range error`` on
a log-probability of 1e308; a backend's log-probabilities are now made valid ones.) The method runs through the runner into a real SQLite store with
the real BM25 index; the model is scripted (the LLM boundary).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hopkit import errors
from hopkit.llm.fake import ScriptedLLM
from hopkit.llm.meter import MeteredLLM
from hopkit.methods.registry import entries
from hopkit.records import Corpus
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.runner import run_method
from hopkit.store.connection import DBConnection
from hopkit.store.records import RunSpec
from hopkit.store.store import Store

from tests.methods.test_method_contract import PARAGRAPHS, QUERIES, build

pytestmark = pytest.mark.unit

HOPKIT_ERRORS = {name for name, value in vars(errors).items()
                 if isinstance(value, type) and issubclass(value, errors.HopkitError)}
EXTREME_NUMBERS = st.one_of(
    st.integers(min_value=-(10**40), max_value=10**40).map(str),
    st.sampled_from(["1e309", "-1e309", "nan", "NaN", "inf", "-0", "0x1F", "1_000", "٣", "½", "9" * 5000, "",
                     "-9223372036854775809", "18446744073709551616"]),
)
MARKUP = st.sampled_from([
    "[Query {n}]:", "[Answer {n}]:", "[Unsolved Query]:", "[Final Content]:", "[{n}]", "[{n}][{n}]", "Passage {n}",
    "Action {n}: Search[{n}]", "Action {n}: Lookup[{n}]", "Action {n}: Finish[{n}]", "Thought {n}:",
    "Follow up: {n}?", "Intermediate answer: {n}", "So the final answer is: {n}", "So the answer is: {n}",
    "confidence: {n}", '{{"confidence": {n}, "answer": "{n}"}}', '{{"queries": [{n}, "{n}"]}}',
    '{{"answer": {{"text": "{n}"}}, "unanswerable": {n}}}', "[Reference {n}]", "Title {n}:", "Doc [{n}]",
    "<answer>{n}</answer>", "[" * 50, "]" * 50, "{{" * 40, "\\u{n}", "\ud800", "\x00", "\u202e{n}",
])
PIECE = st.one_of(
    st.tuples(MARKUP, EXTREME_NUMBERS).map(lambda pair: pair[0].format(n=pair[1])),
    st.text(max_size=40),
    st.sampled_from(["\n", " ", "Tarsk", "Ada Quill", "unanswerable", "yes", "no"]),
)
REPLIES = st.one_of(st.lists(PIECE, max_size=12).map("".join),
                    st.integers(min_value=1, max_value=200_000).map(
                        lambda n: "So the answer is: " + "Tarsk " * (n // 6)))
# A server's JSON may hold any number as a log-probability (the fuzz found FLARE overflowing on 1e308).
LOGPROBS = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([1e308, -1e308, math.nan, 710.0]))


def run_hostile(tmp_path: Path, name: str, replies: list[str],
                logprob: float) -> list[tuple[str, str | None, tuple[int, ...]]]:
    store = Store(DBConnection(f"sqlite:///{tmp_path / f'{name}.db'}").get_session_factory())
    if not store.datasets():
        store.add_corpus(Corpus("toy", PARAGRAPHS, QUERIES))
    turn = iter(range(10**6))

    def model(prompt: str) -> str:
        return replies[next(turn) % len(replies)]

    def scores(prompt: str, continuation: str) -> list[tuple[str, float]]:
        return [(word, logprob) for word in re.findall(r"\s*\S+|\s+$", continuation)]

    method = build(name, MeteredLLM(ScriptedLLM(model, token_scores=scores, entropies=logprob)), BM25Retriever.build(PARAGRAPHS))
    spec = RunSpec(name=f"hostile-{name}", method=name, dataset="toy", config={"n": next(turn)})
    outcome = run_method(method, QUERIES, store, spec, progress=False)
    return [(r.query_id, r.error, r.chunk_ids) for r in store.results(outcome.run_id)]


@pytest.mark.parametrize("name", sorted(entries()))
def test_every_method_answers_or_fails_cleanly_on_hostile_replies(tmp_path: Path, name: str) -> None:
    corpus_ids = {p.id for p in PARAGRAPHS}

    @settings(max_examples=15, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
    @given(st.lists(REPLIES, min_size=1, max_size=4), LOGPROBS)
    def check(replies: list[str], logprob: float) -> None:
        results = run_hostile(tmp_path, name, replies, logprob)
        assert len(results) == len(QUERIES)
        for query_id, error, chunk_ids in results:
            if error is not None:
                kind = error.split(":", 1)[0]
                assert kind in HOPKIT_ERRORS, (f"{name} failed {query_id} with a bare {error[:300]!r} on "
                                               f"{[reply[:200] for reply in replies]!r}, log-probability {logprob}")
            assert set(chunk_ids) <= corpus_ids

    check()
