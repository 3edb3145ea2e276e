"""A corpus streamed into the store (``add_corpus(more=...)``) and read back piece by piece."""

from __future__ import annotations

from typing import Callable, Iterator

import pytest

from hopkit.errors import DataError, StoreError
from hopkit.records import ContextParagraph, Corpus, Paragraph, corpus_fingerprint
from hopkit.store import RunSpec, Store
from hopkit.store.corpus_writer import INSERT_BATCH
from hopkit.store.stored_corpus import StoredCorpus

pytestmark = pytest.mark.unit


def wiki(count: int, start: int = 0) -> Iterator[ContextParagraph]:
    for i in range(start, start + count):
        yield ContextParagraph(title=f"Article {i}", text=f"  Body of article {i}, on topic {i % 7}. ")


def test_streamed_paragraphs_follow_the_pooled_ones(store: Store, make_corpus: Callable[..., Corpus]) -> None:
    corpus = make_corpus("toy", n_paragraphs=6, n_queries=3)
    own_again = ContextParagraph(title=" Title 2 ", text="Text of  paragraph 2 é ✓")  # whitespace aside, pooled
    count = INSERT_BATCH * 2 + 3  # more than one batch, and a partial last one
    store.add_corpus(corpus, more=[*wiki(3), own_again, *wiki(count - 3, start=3)])

    stored = store.paragraphs("toy")
    assert len(stored) == 6 + count
    assert stored[:6] == list(corpus.paragraphs)
    assert stored[6] == Paragraph(6, "Article 0", "Body of article 0, on topic 0.")  # stripped
    assert stored[-1] == Paragraph(5 + count, f"Article {count - 1}", f"Body of article {count - 1}, on topic "
                                                                        f"{(count - 1) % 7}.")
    assert store.fingerprint("toy") == corpus_fingerprint(stored)
    assert store.queries("toy") == list(corpus.queries)


def test_a_bad_line_in_the_stream_stores_nothing(store: Store, make_corpus: Callable[..., Corpus]) -> None:
    def broken() -> Iterator[ContextParagraph]:
        yield from wiki(INSERT_BATCH + 10)
        raise DataError("expected a JSON object", path="wiki.jsonl", line=5011)

    with pytest.raises(DataError, match="wiki.jsonl"):
        store.add_corpus(make_corpus("toy"), more=broken())
    assert store.datasets() == []


def test_replacing_with_a_longer_stream_makes_old_runs_stale(store: Store,
                                                              make_corpus: Callable[..., Corpus]) -> None:
    corpus = make_corpus("toy")
    store.add_corpus(corpus, more=wiki(10))
    store.ensure_run(RunSpec(name="oner", method="oner", dataset="toy",
                             config={"dataset_fingerprint": store.fingerprint("toy")}))
    assert store.add_corpus(corpus, replace=True, more=wiki(10)) == 0  # the same corpus again
    assert store.add_corpus(corpus, replace=True, more=wiki(11)) == 1


def test_stored_corpus_reads_ids_batches_and_single_paragraphs(store: Store,
                                                                make_corpus: Callable[..., Corpus]) -> None:
    store.add_corpus(make_corpus("toy", n_paragraphs=6), more=wiki(20))
    corpus = store.corpus("toy")

    assert len(corpus) == 26
    assert corpus.fingerprint == store.fingerprint("toy")
    assert corpus.ids().tolist() == list(range(26))
    assert [len(batch) for batch in corpus.batches(10)] == [10, 10, 6]
    assert [p for batch in corpus.batches(7) for p in batch] == store.paragraphs("toy")
    assert corpus.fetch([9, 0, 9, 1000]) == {0: Paragraph(0, "Title 0", "Text of paragraph 0 é ✓"),
                                             9: Paragraph(9, "Article 3", "Body of article 3, on topic 3.")}
    assert corpus.ids_with_titles({"Article 0", "Title 5", "nowhere"}) == [5, 6]


def test_stored_corpus_of_an_unknown_dataset(store: Store) -> None:
    with pytest.raises(StoreError, match="unknown dataset 'wiki'"):
        StoredCorpus(store._factory, "wiki")
