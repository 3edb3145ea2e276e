"""A loaded BM25 index maps its vocabulary and row ids from files instead of holding them per process."""

from __future__ import annotations

import json
import os
import random
from collections.abc import Collection, Iterator
from pathlib import Path

import numpy as np
import pytest

from hopkit.errors import RetrievalError
from hopkit.records import Paragraph
from hopkit.retrieval import mapped_vocabulary
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.retrieval.index_meta import META_FILE
from hopkit.retrieval.mapped_vocabulary import MappedVocabulary, write_vocabulary
from hopkit.retrieval.stored_view import ROW_IDS_FILE, MemorySource

pytestmark = pytest.mark.unit

PARAGRAPHS = [Paragraph(3 * i + 1, f"Town {i}", f"Town {i} lies on river {i % 7}, near Zürich and hill {i}.")
              for i in range(80)]
QUERIES = ("river 3 hill 10", "town 59", "zürich", "hill 4 river 4 unknownword", "the and", "")


class IdCountingSource:
    """A real in-memory source that counts how often its whole id list is read."""

    def __init__(self, paragraphs: list[Paragraph]) -> None:
        self.inner = MemorySource(paragraphs)
        self.fingerprint = self.inner.fingerprint
        self.id_reads = 0

    def ids(self) -> np.ndarray:
        self.id_reads += 1
        return self.inner.ids()

    def batches(self, size: int, after: int | None = None) -> Iterator[list[Paragraph]]:
        return self.inner.batches(size, after)

    def fetch(self, ids: Collection[int]) -> dict[int, Paragraph]:
        return self.inner.fetch(ids)

    def ids_with_titles(self, titles: Collection[str]) -> list[int]:
        return self.inner.ids_with_titles(titles)


def test_every_token_is_found_and_no_other(tmp_path: Path) -> None:
    rng = random.Random(5)
    words = {"run", "runn", "running", "zürich", "zurich", "ß", "日本", "a" * 300}
    words |= {"".join(rng.choices("abcxyzé", k=rng.randint(1, 9))) for _ in range(3000)}
    vocab = {word: token_id for token_id, word in enumerate(sorted(words, key=lambda w: rng.random()))}
    write_vocabulary(tmp_path, vocab)
    mapped = MappedVocabulary(tmp_path)
    assert len(mapped) == len(vocab)
    assert {word: mapped.get(word) for word in vocab} == vocab
    for absent in ("ru", "runni", "zzzzzzzzzz", "", "日", "a" * 299, "A"):
        assert absent not in vocab and mapped.get(absent) is None


def test_a_loaded_index_maps_its_vocabulary_and_row_ids_and_answers_as_built(tmp_path: Path) -> None:
    built = BM25Retriever.build(PARAGRAPHS)
    built.save(tmp_path)
    source = IdCountingSource(PARAGRAPHS)
    loaded = BM25Retriever.load_from(tmp_path, source)
    assert isinstance(loaded.vocabulary, MappedVocabulary) and loaded.model.vocab_dict == {}
    assert isinstance(loaded.corpus.ids, np.memmap) and source.id_reads == 0
    for query in QUERIES:
        assert loaded.retrieve(query, 5) == built.retrieve(query, 5), query
    assert loaded.retrieve("river 3", 4, titles={"Town 3", "Town 10"}) == built.retrieve(
        "river 3", 4, titles={"Town 3", "Town 10"})


def older_index(folder: Path) -> None:
    """An index folder as hopkit saved it before it wrote mapped files (nor recorded its files' CRC-32s)."""
    BM25Retriever.build(PARAGRAPHS).save(folder)
    for name in (*mapped_vocabulary.FILES, ROW_IDS_FILE):
        (folder / name).unlink()
    meta = json.loads((folder / META_FILE).read_text(encoding="utf-8"))
    del meta["file_crcs"]
    (folder / META_FILE).write_text(json.dumps(meta), encoding="utf-8")


def test_an_older_index_gets_its_mapped_files_on_first_load(tmp_path: Path) -> None:
    older_index(tmp_path)
    reference = BM25Retriever.build(PARAGRAPHS)
    first = BM25Retriever.load_from(tmp_path, IdCountingSource(PARAGRAPHS))
    source = IdCountingSource(PARAGRAPHS)
    again = BM25Retriever.load_from(tmp_path, source)
    assert source.id_reads == 0 and isinstance(again.vocabulary, MappedVocabulary)
    for query in QUERIES:
        assert first.retrieve(query, 5) == again.retrieve(query, 5) == reference.retrieve(query, 5), query
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_an_older_index_whose_files_cannot_be_added_loads_its_vocabulary_whole(tmp_path: Path) -> None:
    older_index(tmp_path)
    for name in (*mapped_vocabulary.FILES, ROW_IDS_FILE):  # each file's temporary name is taken by a folder
        (tmp_path / f".{name}.{os.getpid()}.tmp").mkdir()
    loaded = BM25Retriever.load_from(tmp_path, MemorySource(PARAGRAPHS))
    assert loaded.vocabulary == loaded.model.vocab_dict and len(loaded.vocabulary) > 50
    assert loaded.retrieve("river 3 hill 10", 5) == BM25Retriever.build(PARAGRAPHS).retrieve("river 3 hill 10", 5)


def test_vocabulary_files_that_disagree_are_refused_by_folder(tmp_path: Path) -> None:
    write_vocabulary(tmp_path, {"river": 0, "hill": 1})
    (tmp_path / mapped_vocabulary.TOKENS_FILE).write_bytes(b"riverhil")
    with pytest.raises(RetrievalError, match=f"{tmp_path}.*do not match"):
        MappedVocabulary(tmp_path)


def test_an_older_index_loaded_for_another_corpus_is_refused_and_gets_no_row_ids(tmp_path: Path) -> None:
    older_index(tmp_path)
    other = [Paragraph(p.id, p.title, p.text + " Changed.") for p in PARAGRAPHS]
    with pytest.raises(RetrievalError, match="other paragraphs"):
        BM25Retriever.load_from(tmp_path, MemorySource(other))
    assert not (tmp_path / ROW_IDS_FILE).exists()
    loaded = BM25Retriever.load_from(tmp_path, MemorySource(PARAGRAPHS))
    assert loaded.retrieve("river 3 hill 10", 5) == BM25Retriever.build(PARAGRAPHS).retrieve("river 3 hill 10", 5)
