"""Every text column written from outside input, fuzzed on SQLite and on PostgreSQL.

Answers, errors, traces, run names and configs, verdicts, corpus texts and imported rows
take any text: NUL, lone surrogates, control characters, very long. Each write succeeds,
and reads back as :func:`hopkit.store.storable.storable_text` says (U+FFFD for NUL and lone
surrogates, everything else as it was), so nothing stops a run and nothing else is lost.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hopkit.errors import ConfigError, StoreError
from hopkit.records import Corpus, Paragraph, Query
from hopkit.store import DBConnection, QueryResult, RunSpec, Store
from hopkit.store.storable import storable_json, storable_text
from hopkit.store.transfer import export_runs, import_runs
from hopkit.store.verdicts import StoredVerdict

pytestmark = pytest.mark.unit

SPECIAL = ["\x00", "a\x00b", "\ud800", "x\udfffy", "\ud83d\ude00", "\x1b[2J", "\x07\x08\x7f\x9b", "\u202eevil",
           "\r\n\t", "é ✓ 漢字 😀", "=HYPERLINK(\"x\")", "'; DROP TABLE runs; --", ""]
any_character = st.characters(min_codepoint=0, max_codepoint=0x10FFFF, blacklist_categories=())
hostile_text = st.one_of(
    st.text(any_character, max_size=40),
    st.sampled_from(SPECIAL),
    st.builds(lambda piece, times: piece * times, st.sampled_from(["\x00ab", "é\ud800", "x"]),
              st.integers(min_value=10_000, max_value=60_000)))
hostile_name = st.one_of(st.text(any_character, max_size=40), st.sampled_from(SPECIAL))  # names are held to 200
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2**40, 2**40), hostile_text),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(hostile_text, inner, max_size=4)),
    max_leaves=12)
FUZZ = settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
_counter = itertools.count()


def _corpus() -> Corpus:
    return Corpus("toy", (Paragraph(0, "Tarsk", "Tarsk is a port."), Paragraph(1, "Ada", "Ada was born in Tarsk.")),
                  (Query("q0", "Where was Ada born?", ("Tarsk",), (0, 1)),))


@pytest.fixture()
def toy_store(store: Store) -> Store:
    store.add_corpus(_corpus())
    return store


@FUZZ
@given(prediction=hostile_text, error=st.one_of(st.none(), hostile_text), trace=json_values, name=hostile_name)
def test_a_result_with_any_text_stores_and_reads_back(toy_store: Store, prediction: str, error: str | None,
                                                      trace: object, name: str) -> None:
    spec = RunSpec(name=f"run {name}", method="nor", dataset="toy",
                   config={"example": next(_counter), "prompt": name})
    run = toy_store.ensure_run(spec)
    toy_store.record_result(run.run_id, QueryResult("q0", prediction, (0,), {"step": trace}, error=error))
    (stored,) = toy_store.results(run.run_id)
    assert stored.prediction == storable_text(prediction)
    assert stored.error == (None if error is None else storable_text(error))
    assert stored.trace == {"step": storable_json(trace)}
    listed = toy_store.run(run.run_id)
    assert listed.name == storable_text(f"run {name}") and listed.config["prompt"] == storable_text(name)


@FUZZ
@given(prediction=hostile_text, raw=hostile_text, judge=hostile_name)
def test_a_verdict_with_any_text_stores_and_reads_back(toy_store: Store, prediction: str, raw: str,
                                                       judge: str) -> None:
    run = toy_store.ensure_run(RunSpec("judged", "nor", "toy", {"example": next(_counter)}))
    judge_model = f"judge {judge}"
    toy_store.verdicts.record(run.run_id, judge_model, "v1", StoredVerdict("q0", prediction, True, raw))
    (verdict,) = toy_store.verdicts.verdicts(run.run_id, storable_text(judge_model), "v1").values()
    assert (verdict.prediction, verdict.raw) == (storable_text(prediction), storable_text(raw))


@settings(max_examples=15, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(title=hostile_text, text=hostile_text, question=hostile_text, answer=hostile_text)
def test_a_corpus_with_any_text_stores_with_the_fingerprint_of_what_is_stored(
        store: Store, title: str, text: str, question: str, answer: str) -> None:
    name = f"data-{next(_counter)}"
    corpus = Corpus(name, (Paragraph(0, title, text),), (Query("q\x00", question, (answer,), (0,), (title,)),))
    store.add_corpus(corpus)
    (paragraph,) = store.paragraphs(name)
    (query,) = store.queries(name)
    assert (paragraph.title, paragraph.text) == (storable_text(title), storable_text(text))
    assert (query.id, query.text, query.answers) == ("q\ufffd", storable_text(question), (storable_text(answer),))
    from hopkit.records import corpus_fingerprint

    assert store.fingerprint(name) == corpus_fingerprint(store.paragraphs(name))


@settings(max_examples=10, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(prediction=hostile_text, trace=json_values, name=hostile_name)
def test_an_export_with_any_text_imports_into_either_database(toy_store: Store, tmp_path: Path, prediction: str,
                                                              trace: object, name: str) -> None:
    source = Store(DBConnection(f"sqlite:///{tmp_path / f'source-{next(_counter)}.db'}").get_session_factory())
    source.add_corpus(_corpus())
    run_id = source.ensure_run(RunSpec(f"moved {name}", "nor", "toy", {"example": next(_counter)})).run_id
    source.record_result(run_id, QueryResult("q0", prediction, (1,), {"t": trace}))
    path = tmp_path / f"runs-{next(_counter)}.jsonl.gz"
    export_runs(source, [run_id], path)
    summary = import_runs(toy_store, path)
    assert summary.runs == (run_id,) and summary.results_added == 1 and summary.truncated_after is None
    assert toy_store.results(run_id) == source.results(run_id)


def test_names_and_ids_longer_than_the_limit_are_refused_with_their_length(store: Store) -> None:
    """PostgreSQL cannot index a name of some 2,700 bytes: the fuzz above found a run name that stopped
    `ensure_run` there (and passed on SQLite). Names and ids are labels, held to 200 characters."""
    long = "n" * 201
    with pytest.raises(ConfigError, match="the run's name is 201 characters long, more than the 200"):
        RunSpec(long, "nor", "toy", {})
    with pytest.raises(StoreError, match="the dataset name is 201 characters long"):
        store.add_corpus(Corpus(long, (Paragraph(0, "a", "b"),), ()))
    with pytest.raises(StoreError, match="a question id is 201 characters long"):
        store.add_corpus(Corpus("toy", (Paragraph(0, "a", "b"),), (Query(long, "?"),)))
    assert store.datasets() == []
