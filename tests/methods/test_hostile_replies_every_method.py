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

Each method runs in every configuration its options allow (``tests/methods/configurations.py``: every
value of its readers, templates, modes and switches, and every pair of them), each with a fixed set of
hostile replies (every markup of the list below with each extreme number) and a few drawn by hypothesis.
The model has every capability (chat, sampling, scoring, token scores, attention, early stop), so no
configuration is refused for want of one. (Issue 70: ALCE's ``rerank`` reader, never fuzzed while only the
defaults were, failed every question on a citation of 5,000 digits.)
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, Iterator, Mapping

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hopkit import errors
from hopkit.pipelines.experiments import load_experiment
from hopkit.llm.fake import ScriptedLLM
from hopkit.llm.meter import MeteredLLM
from hopkit.methods.protocol import Method
from hopkit.methods.registry import MethodParts, entries
from hopkit.prompts.ircot_files import IRCoTPromptFiles
from hopkit.records import Corpus
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.pipelines.runner import run_method
from hopkit.store.connection import DBConnection
from hopkit.store.records import RunSpec
from hopkit.store.store import Store

from tests.methods.configurations import configurations, describe
from tests.methods.test_method_contract import CONTRACT_OPTIONS, JUDGED, PARAGRAPHS, QUERIES

pytestmark = pytest.mark.unit

HOPKIT_ERRORS = {name for name, value in vars(errors).items()
                 if isinstance(value, type) and issubclass(value, errors.HopkitError)}
EXTREME_NUMBERS = st.one_of(
    st.integers(min_value=-(10**40), max_value=10**40).map(str),
    st.sampled_from(["1e309", "-1e309", "nan", "NaN", "inf", "-0", "0x1F", "1_000", "٣", "½", "9" * 5000, "",
                     "-9223372036854775809", "18446744073709551616"]),
)
MARKUPS = (
    "[Query {n}]:", "[Answer {n}]:", "[Unsolved Query]:", "[Final Content]:", "[{n}]", "[{n}][{n}]", "Passage {n}",
    "Action {n}: Search[{n}]", "Action {n}: Lookup[{n}]", "Action {n}: Finish[{n}]", "Thought {n}:",
    "Follow up: {n}?", "Intermediate answer: {n}", "So the final answer is: {n}", "So the answer is: {n}",
    "confidence: {n}", '{{"confidence": {n}, "answer": "{n}"}}', '{{"queries": [{n}, "{n}"]}}',
    '{{"answer": {{"text": "{n}"}}, "unanswerable": {n}}}', "[Reference {n}]", "Title {n}:", "Doc [{n}]",
    "<answer>{n}</answer>", "<search>{n}</search>", "<think>{n}", "<|begin_search_query|>{n}<|end_search_query|>",
    "<|begin_of_query|>{n}<|end_of_query|>", "\\boxed{{{n}}}", "**Final Information**{n}",
    "[" * 50, "]" * 50, "{{" * 40, "\\u{n}", "\ud800", "\x00", "\u202e{n}",
)
MARKUP = st.sampled_from(MARKUPS)
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


# Replies every configuration gets: a citation, a confidence and a query number of 5,000 digits (past
# Python's 4,300-digit limit on int()), then every markup above with each extreme number, and replies
# of nothing but controls and surrogates; each with a hostile log-probability.
HUGE = "9" * 5000
FIXED_NUMBERS = ("18446744073709551616", "1e309", "-9223372036854775809", "nan", "\u0663", "")
FIXED_REPLIES: tuple[tuple[list[str], float], ...] = (
    *(([f"Tarsk [{HUGE}]. So the answer is: Tarsk [{HUGE}].",
        f"[Query {HUGE}]: [{HUGE}] confidence: {HUGE} Passage {HUGE} Action {HUGE}: Finish[{HUGE}]",
        " ".join(markup.format(n=number) for markup in MARKUPS)], logprob)
      for number, logprob in zip(FIXED_NUMBERS, (math.nan, math.inf, -math.inf, 1e308, -1e308, 710.0))),
    (["", "\x00", "\ud800\u202e", "So the answer is: " + "Tarsk " * 3_000], -0.01),
)


@pytest.fixture(autouse=True)
def no_downloads(monkeypatch: pytest.MonkeyPatch) -> None:
    """The few-shot configurations read the authors' prompt files from ``$HOPKIT_DATA_DIR`` (as
    ``scripts/test.sh`` sets it) or the download cache; a unit test downloads nothing, so without them
    those configurations are skipped."""
    def refuse(self: IRCoTPromptFiles, url: str, target: Path) -> None:
        raise errors.DownloadError(f"{url}: the unit tests download nothing; set HOPKIT_DATA_DIR")

    monkeypatch.setattr(IRCoTPromptFiles, "_download", refuse)


class AnyCandidate(Mapping[str, float]):
    """A scoring table with one log-probability for every candidate (the LLM judges' " yes" and " no")."""

    def __init__(self, logprob: float) -> None:
        self.logprob = logprob

    def __getitem__(self, candidate: str) -> float:
        return self.logprob

    def __contains__(self, candidate: object) -> bool:
        return True

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


def every_configuration() -> list[Any]:
    """(method, configuration) for every registered method and every configuration of its options."""
    return [pytest.param(name, values, id=f"{name}[{describe(values)}]")
            for name, entry in sorted(entries().items()) for values in configurations(entry.options)]


# Beside the contract's options: as many DRAGIN exemplars as the smallest set holds, so every set can be chosen.
FUZZ_OPTIONS: dict[str, dict[str, Any]] = {"dragin": {"shots": 6}}


def build(name: str, values: dict[str, Any], llm: MeteredLLM, retriever: BM25Retriever) -> Method:
    """The method ``name`` with ``values`` beside its contract options, built by its registry entry: its LLM
    judges (MIGRES's, ALCE's) on the hostile model too; SearChain's reader and duplicate check scripted, as
    in the contract test. A configuration its entry refuses (IRCoT's reasoning-context reader without
    demonstrations), or one whose data files are not at hand (MIGRES's few-shot demonstrations without
    ``$HOPKIT_DATA_DIR``, as ``scripts/test.sh`` sets it), is skipped, saying why."""
    entry = entries()[name]
    options = entry.as_run(entry.options(**{**CONTRACT_OPTIONS.get(name, {}), **FUZZ_OPTIONS.get(name, {}), **values}))
    try:
        if name == "searchain":
            return JUDGED[name](llm, retriever, options)
        return entry.build(MethodParts(llm, retriever, options, dataset="toy", paragraphs=lambda: PARAGRAPHS,
                                       experiments=load_experiment))
    except (errors.ConfigError, errors.DataError, errors.DownloadError) as refused:
        pytest.skip(f"{name} cannot be built with {describe(values)} here: {refused}")


def run_hostile(tmp_path: Path, name: str, values: dict[str, Any], replies: list[str],
                logprob: float) -> list[tuple[str, str | None, tuple[int, ...]]]:
    store = Store(DBConnection(f"sqlite:///{tmp_path / 'hostile.db'}").get_session_factory())
    if not store.datasets():
        store.add_corpus(Corpus("toy", PARAGRAPHS, QUERIES))
    turn = iter(range(10**6))

    def model(prompt: str) -> str:
        return replies[next(turn) % len(replies)]

    def scores(prompt: str, continuation: str) -> list[tuple[str, float]]:
        return [(word, logprob) for word in re.findall(r"\s*\S+|\s+$", continuation)]

    scripted = ScriptedLLM(model, token_scores=scores, entropies=logprob, scores=lambda prompt: AnyCandidate(logprob),
                           chat=True, sampling=True, streaming=True)
    method = build(name, values, MeteredLLM(scripted), BM25Retriever.build(PARAGRAPHS))
    spec = RunSpec(name=f"hostile-{name}", method=name, dataset="toy", config={"n": next(turn), **repr_of(values)})
    outcome = run_method(method, QUERIES, store, spec, progress=False)
    return [(r.query_id, r.error, r.chunk_ids) for r in store.results(outcome.run_id)]


def repr_of(values: dict[str, Any]) -> dict[str, str]:
    return {name: repr(value) for name, value in values.items()}


def check_results(name: str, values: dict[str, Any], replies: list[str], logprob: float,
                  results: list[tuple[str, str | None, tuple[int, ...]]]) -> None:
    corpus_ids = {p.id for p in PARAGRAPHS}
    assert len(results) == len(QUERIES)
    for query_id, error, chunk_ids in results:
        if error is not None:
            kind = error.split(":", 1)[0]
            assert kind in HOPKIT_ERRORS, (f"{name} ({describe(values)}) failed {query_id} with a bare {error[:300]!r} "
                                           f"on {[reply[:200] for reply in replies]!r}, log-probability {logprob}")
        assert set(chunk_ids) <= corpus_ids


@pytest.mark.parametrize(("name", "values"), every_configuration())
def test_every_method_answers_or_fails_cleanly_on_hostile_replies(tmp_path: Path, name: str,
                                                                  values: dict[str, Any]) -> None:
    for replies, logprob in FIXED_REPLIES:
        check_results(name, values, replies, logprob, run_hostile(tmp_path, name, values, replies, logprob))

    @settings(max_examples=3, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
    @given(st.lists(REPLIES, min_size=1, max_size=4), LOGPROBS)
    def check(replies: list[str], logprob: float) -> None:
        check_results(name, values, replies, logprob, run_hostile(tmp_path, name, values, replies, logprob))

    check()


def test_the_configurations_cover_every_value_of_every_closed_option() -> None:
    """The fuzz's configurations hold ALCE's RERANK reader, each search agent family and each switch of
    MIGRES's, so a new value of such an option is fuzzed without a line of the test changed."""
    from hopkit.methods.search_agent.templates import template_names

    def seen(method: str, option: str) -> set[Any]:
        entry = entries()[method]
        default = getattr(entry.options(), option)
        return {values.get(option, default) for values in configurations(entry.options)}

    assert seen("alce", "reader") == {"vanilla", "vanilla-s", "summ", "snippet", "rerank"}
    assert seen("search-agent", "template") == set(template_names())
    assert seen("migres", "few_shot") == {False, True} and seen("migres", "demonstration_set") == {
        "multihop", "odqa", "commonsense"}
    assert {reader.mode for reader in seen("oner", "reader")} == {"direct", "cot"}
