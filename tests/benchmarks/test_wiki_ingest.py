"""The generated wiki-18 file of ``big_corpus corpus-add`` (issue 72) is read by hopkit's own corpus reader as
Search-R1's file is, and the check that every passage is stored once tells a store that holds them from one
that does not."""

from __future__ import annotations

import gzip
import json
import sqlite3
import tarfile
from pathlib import Path

import pytest

from hopkit.campaign.wiki_ingest import MEMBER, PASSAGES_PER_ARTICLE, WORDS_PER_PASSAGE, Lexicon, passage_lines, \
    stored_once, write_wiki18
from hopkit.data.corpus_source import CorpusSource
from hopkit.store.corpus_ingest import add_corpus_file
from hopkit.store.store import Store

pytestmark = pytest.mark.unit

PASSAGES = 130


def wiki(folder: Path) -> Path:
    path = folder / "wiki-18.jsonl.gz"
    write_wiki18(path, PASSAGES, 5_000, 0, lambda line: None)
    return path


def test_the_file_is_a_gzipped_tar_of_wiki18_jsonl_lines(tmp_path: Path) -> None:
    with tarfile.open(wiki(tmp_path), "r:gz") as archive:
        [member] = archive.getmembers()
        lines = archive.extractfile(member).read().decode("utf-8").splitlines()  # type: ignore[union-attr]
    assert member.name == MEMBER and len(lines) == PASSAGES
    first = json.loads(lines[0])
    assert list(first) == ["id", "contents"] and first["id"] == "0"
    title, text = first["contents"].split("\n")
    assert title.startswith('"') and title.endswith('"') and len(text.split()) == WORDS_PER_PASSAGE


def test_hopkits_reader_reads_every_passage_with_its_id_title_and_100_words(tmp_path: Path) -> None:
    source = CorpusSource.open(wiki(tmp_path))
    passages = list(source.passages())
    assert source.format == "flashrag"
    assert [p.source_id for p in passages] == [str(i) for i in range(PASSAGES)]
    assert all(len(p.text.split()) == WORDS_PER_PASSAGE and p.text.endswith(".") for p in passages)
    assert all('"' not in p.title for p in passages)
    assert passages[0].title == passages[PASSAGES_PER_ARTICLE - 1].title != passages[PASSAGES_PER_ARTICLE].title


def test_the_same_arguments_give_the_same_lines_and_a_second_write_reuses_the_file(tmp_path: Path) -> None:
    lexicon = Lexicon.made_up(5_000)
    assert passage_lines(lexicon, 40, 10, 3) == passage_lines(lexicon, 40, 10, 3) != passage_lines(lexicon, 40, 10, 4)
    path = wiki(tmp_path)
    written = path.stat().st_mtime_ns
    assert write_wiki18(path, PASSAGES, 5_000, 0, lambda line: None)["passages"] == PASSAGES
    assert path.stat().st_mtime_ns == written
    assert len(gzip.decompress(path.read_bytes())) > PASSAGES * WORDS_PER_PASSAGE


def test_stored_once_holds_for_a_whole_store_and_not_for_one_missing_a_passage(tmp_path: Path) -> None:
    db = tmp_path / "hopkit.db"
    store = Store.connect(f"sqlite:///{db}")
    add_corpus_file(store.corpora, "wiki18", CorpusSource.open(wiki(tmp_path)), batch=50, progress=False)
    assert stored_once(db, "wiki18", PASSAGES)["once"]
    with sqlite3.connect(db) as connection:
        connection.execute("DELETE FROM corpus_passages WHERE id = 7")
    checked = stored_once(db, "wiki18", PASSAGES)
    assert not checked["once"] and checked["rows"] == PASSAGES - 1
