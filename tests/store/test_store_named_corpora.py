"""Corpora stored once on their own: written in batches, resumed, never twice, used only when complete."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text

from hopkit.data.corpus_source import CorpusSource, SourcePassage
from hopkit.errors import StoreError
from hopkit.records import Paragraph, corpus_fingerprint
from hopkit.store import DBConnection, Store
from hopkit.store.corpus_ingest import add_corpus_file

from ..data.corpus_fixtures import DPR_EXPECTED, dpr_file, expected_wiki18, wiki18_file

pytestmark = pytest.mark.unit


def stored(store: Store, name: str) -> list[tuple[int, str, str, str]]:
    return [(p.id, p.source_id, p.title, p.text) for batch in store.corpora.passages(name, size=333) for p in batch]


def test_a_corpus_is_stored_once_in_file_order_with_its_ids(store: Store, tmp_path: Path) -> None:
    source = CorpusSource.open(wiki18_file(tmp_path / "wiki-18.jsonl.gz", 2500))
    done = add_corpus_file(store.corpora, "wiki18", source, batch=400, progress=False)
    expected = expected_wiki18(2500)
    assert (done.resumed_from, done.added, done.corpus.passages, done.corpus.complete) == (0, 2500, 2500, True)
    assert stored(store, "wiki18") == [(i, *row) for i, row in enumerate(expected)]
    assert done.corpus.fingerprint == corpus_fingerprint([Paragraph(i, t, x) for i, (_, t, x) in enumerate(expected)])
    assert store.datasets() == []  # no questions, no dataset
    found = store.corpora.by_source_ids("wiki18", ["7", "2506", "nope"])
    assert {sid: p.id for sid, p in found.items()} == {"7": 0, "2506": 2499}
    again = add_corpus_file(store.corpora, "wiki18", source, batch=400, progress=False)
    assert (again.added, again.corpus.passages) == (0, 2500)  # the same command again: nothing to do


def test_a_stopped_ingest_resumes_where_it_stopped(store: Store, tmp_path: Path) -> None:
    source = CorpusSource.open(wiki18_file(tmp_path / "wiki-18.jsonl.gz", 1000))
    info = store.corpora.begin("wiki18", source=str(source.path.resolve()), format="flashrag",
                               source_bytes=source.size)
    head = list(source.passages())[:300]
    store.corpora.append(info.corpus_id, 0, head)
    with pytest.raises(StoreError, match=r"corpus 'wiki18' is incomplete \(300 passages stored so far.*"
                                         r"hopkit corpus add wiki18 .*wiki-18.jsonl.gz` again"):
        store.corpora.get("wiki18")
    with pytest.raises(StoreError, match="incomplete"):
        next(store.corpora.passages("wiki18"))
    with pytest.raises(StoreError, match="another process"):  # a writer that read an old count stores nothing
        store.corpora.append(info.corpus_id, 200, head[200:])
    done = add_corpus_file(store.corpora, "wiki18", source, batch=128, progress=False)
    assert (done.resumed_from, done.added, done.corpus.passages) == (300, 700, 1000)
    assert stored(store, "wiki18") == [(i, *row) for i, row in enumerate(expected_wiki18(1000))]
    assert store.corpora.count(done.corpus.corpus_id) == 1000


def test_another_file_under_the_same_name_is_refused_unless_replaced(store: Store, tmp_path: Path) -> None:
    add_corpus_file(store.corpora, "wiki", CorpusSource.open(wiki18_file(tmp_path / "w.jsonl", 50)), progress=False)
    dpr = CorpusSource.open(dpr_file(tmp_path / "psgs_w100.tsv"))
    with pytest.raises(StoreError, match=r"corpus 'wiki' is stored from .*w.jsonl \(flashrag.*--replace"):
        add_corpus_file(store.corpora, "wiki", dpr, progress=False)
    done = add_corpus_file(store.corpora, "wiki", dpr, replace=True, progress=False)
    assert [(p.source_id, p.title, p.text) for p in next(store.corpora.passages("wiki"))] == DPR_EXPECTED
    assert done.corpus.passages == 3 and store.corpora.count(done.corpus.corpus_id) == 3
    assert [c.name for c in store.corpora.list()] == ["wiki"]
    with pytest.raises(StoreError, match="unknown corpus 'wki'; known corpora: wiki"):
        store.corpora.get("wki")
    assert store.corpora.delete("wiki") and store.corpora.list() == []


def test_an_existing_store_gets_the_corpus_tables(db_url: str, tmp_path: Path) -> None:
    """A store made before named corpora: ``create_all`` adds the three tables and leaves the rest alone."""
    today = DBConnection(db_url)
    today.get_session_factory()  # today's tables (the fixture's, on PostgreSQL), then fewer
    today.dispose()
    engine = create_engine(db_url)
    with engine.begin() as connection:
        for table in ("dataset_corpora", "corpus_passages", "corpora"):
            connection.execute(text(f"DROP TABLE {table}"))
        connection.execute(text("INSERT INTO datasets (name, created_at, fingerprint) "
                                "VALUES ('old', CURRENT_TIMESTAMP, 'f')"))
    assert "corpora" not in inspect(engine).get_table_names()
    engine.dispose()
    reading = DBConnection(db_url, read_only=True)  # read-only, nothing is added: it reads as before
    try:
        old = Store(reading.get_session_factory())
        assert old.datasets() == ["old"] and len(old.corpus("old")) == 0 and old.paragraphs("old") == []
    finally:
        reading.dispose()
    connection = DBConnection(db_url)
    try:
        store = Store(connection.get_session_factory())
        assert {"corpora", "corpus_passages", "dataset_corpora"} <= set(inspect(connection.engine).get_table_names())
        add_corpus_file(store.corpora, "c", CorpusSource.open(wiki18_file(tmp_path / "w.jsonl", 5)), progress=False)
        assert store.corpora.get("c").passages == 5
        assert store.datasets() == ["old"] and len(store.corpus("old")) == 0
    finally:
        connection.dispose()


def test_hostile_text_is_stored_readably(store: Store) -> None:
    info = store.corpora.begin("odd", source="/x", format="hopkit", source_bytes=1)
    store.corpora.append(info.corpus_id, 0, [SourcePassage("a\x00", "T\x00", "lone \ud800 surrogate")])
    store.corpora.finish(info.corpus_id)
    [passage] = next(store.corpora.passages("odd"))
    assert "\x00" not in passage.title + passage.source_id and "\ud800" not in passage.text


def test_a_corpus_downloaded_by_name_resumes_without_a_path(store: Store) -> None:
    store.corpora.begin("wiki18", source="hf://datasets/PeterJinGo/wiki-18-corpus/wiki-18.jsonl.gz",
                        format="flashrag", source_bytes=10)
    with pytest.raises(StoreError, match=r"run `hopkit corpus add wiki18` again to finish it$"):
        store.corpora.get("wiki18")
