"""Re-ingesting a dataset never lets a run be scored against a corpus it did not run on."""

from __future__ import annotations

from typing import Callable

import pytest

from hopkit.errors import StoreError
from hopkit.records import Corpus
from hopkit.scoring_runs import score_run, score_runs, split_scorable
from hopkit.store import QueryResult, RunSpec, Store

pytestmark = pytest.mark.unit


def retrieval_spec(store: Store, name: str = "oner", top_k: int = 2) -> RunSpec:
    """A retrieving run's spec whose config pins the corpus, as the pipelines' specs do."""
    return RunSpec(name=name, method="oner", dataset="toy",
                   config={"retrieval": {"kind": "bm25"}, "top_k": top_k,
                           "dataset_fingerprint": store.fingerprint("toy")})


def answer_with_gold(store: Store, run_id: str) -> None:
    """Record, for every question, its gold answer and exactly its gold paragraphs."""
    for query in store.queries("toy"):
        store.record_result(run_id, QueryResult(query_id=query.id, prediction=query.answers[0],
                                                chunk_ids=query.gold_paragraph_ids))


def reordered(corpus: Corpus) -> Corpus:
    """The same questions, but the paragraphs renumbered, as a re-ingest of another sample does."""
    top = len(corpus.paragraphs) - 1
    paragraphs = tuple(type(p)(id=top - p.id, title=p.title, text=p.text) for p in corpus.paragraphs)
    queries = tuple(type(q)(id=q.id, text=q.text, answers=q.answers,
                            gold_paragraph_ids=tuple(top - pid for pid in q.gold_paragraph_ids),
                            gold_titles=q.gold_titles, main_passage=q.main_passage,
                            answer_type=q.answer_type)
                    for q in corpus.queries)
    return Corpus(name=corpus.name, paragraphs=paragraphs, queries=queries)


@pytest.fixture
def scored_run(store: Store, make_corpus: Callable[..., Corpus]) -> str:
    store.add_corpus(make_corpus("toy", n_paragraphs=6, n_queries=4))
    run_id = store.ensure_run(retrieval_spec(store)).run_id
    answer_with_gold(store, run_id)
    summary, _ = score_run(store, store.find_runs(run_id)[0])
    assert summary.metrics["paragraph_recall"].mean == 1.0
    return run_id


def test_replacing_the_corpus_marks_earlier_runs_stale(store: Store, scored_run: str,
                                                       make_corpus: Callable[..., Corpus]) -> None:
    old_fingerprint = store.fingerprint("toy")
    made_stale = store.add_corpus(reordered(make_corpus("toy", n_paragraphs=6, n_queries=4)),
                                  replace=True)
    assert made_stale == 1
    run = store.run(scored_run)
    assert run.stale and run.dataset_fingerprint == old_fingerprint
    assert run.current_fingerprint == store.fingerprint("toy") != old_fingerprint
    assert [r.stale for r in store.runs()] == [True] == [r.stale for r in store.find_runs("oner")]
    assert "re-ingested" in run.stale_reason and "'oner'" in run.stale_reason
    assert scored_run in run.stale_reason and "rerun" in run.stale_reason


def test_a_stale_run_is_never_scored_against_the_new_corpus(store: Store, scored_run: str,
                                                            make_corpus: Callable[..., Corpus]) -> None:
    """Before the fix the same results scored 100% recall, then 0% after the re-ingest."""
    old_info = store.find_runs(scored_run)[0]
    store.add_corpus(reordered(make_corpus("toy", n_paragraphs=6, n_queries=4)), replace=True)
    for info in (old_info, store.find_runs(scored_run)[0]):  # an old RunInfo cannot slip through either
        with pytest.raises(StoreError, match=r"'oner'.*stale.*re-ingested.*rerun its config"):
            score_run(store, info)
    with pytest.raises(StoreError, match="stale"):
        score_runs(store, [old_info])


def test_reingesting_the_same_corpus_keeps_runs_current(store: Store, scored_run: str,
                                                        make_corpus: Callable[..., Corpus]) -> None:
    assert store.add_corpus(make_corpus("toy", n_paragraphs=6, n_queries=4), replace=True) == 0
    assert not store.run(scored_run).stale
    assert score_run(store, store.run(scored_run))[0].metrics["paragraph_recall"].mean == 1.0


def test_new_runs_on_the_new_corpus_are_scored_beside_skipped_stale_ones(
        store: Store, scored_run: str, make_corpus: Callable[..., Corpus]) -> None:
    store.add_corpus(reordered(make_corpus("toy", n_paragraphs=6, n_queries=4)), replace=True)
    fresh = store.ensure_run(retrieval_spec(store)).run_id
    assert fresh != scored_run
    answer_with_gold(store, fresh)
    scorable, skipped = split_scorable(store.runs("toy"))
    assert [r.run_id for r in scorable] == [fresh]
    assert [s.run.run_id for s in skipped] == [scored_run] and "stale" in skipped[0].reason
    assert score_runs(store, scorable)[0].metrics["paragraph_recall"].mean == 1.0


def test_a_run_without_results_is_skipped_not_fatal(store: Store, scored_run: str) -> None:
    """Before the fix, one run with 0 results made score_runs raise ValueError for all runs."""
    empty = store.ensure_run(retrieval_spec(store, name="killed", top_k=9)).run_id
    scorable, skipped = split_scorable(store.runs())
    assert [r.run_id for r in scorable] == [scored_run]
    assert [s.run.run_id for s in skipped] == [empty]
    assert "'killed'" in skipped[0].reason and "no results yet" in skipped[0].reason
    with pytest.raises(StoreError, match="'killed'.*no results yet"):
        score_run(store, store.run(empty))
