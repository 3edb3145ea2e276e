"""BM25 over title and paragraph text, on bm25s (the IRCoT authors used Elasticsearch)."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any, Callable, Collection, Iterable, Mapping, Sequence

import bm25s

from hopkit.errors import RetrievalError
from hopkit.records import Paragraph, ScoredParagraph
from hopkit.retrieval.bm25_build import build_bm25
from hopkit.retrieval.corpus_view import CorpusView, RankedCorpus, in_id_order, passage_text
from hopkit.retrieval.index_folders import ChangedIndexFile
from hopkit.retrieval.index_meta import META_FILE, check_corpus, read_meta, write_meta
from hopkit.retrieval.mapped_files import file_crc32, matches_recorded_crc
from hopkit.retrieval.mapped_vocabulary import MappedVocabulary, has_vocabulary, write_vocabulary
from hopkit.retrieval.stored_view import ParagraphSource, SourceView, mapped_row_ids, write_row_ids
from hopkit.retrieval.tokenize import TOKENIZER_ID, tokenize

logger = logging.getLogger(__name__)

# bm25s's "bm25l" and "bm25+" give every paragraph a score, even one sharing no query
# term, which breaks "only paragraphs sharing a term are returned"; they are left out.
METHODS = ("lucene", "robertson", "atire")
#: BM25's parameters when none are given: Elasticsearch's k1 and b, with Lucene's scoring.
BM25_DEFAULTS: Mapping[str, Any] = {"k1": 1.2, "b": 0.75, "method": "lucene"}


BUILD_BATCH = 10_000
BM25S_VOCAB_FILE = "vocab.index.json"


def _check_parameters(k1: float, b: float, method: str) -> None:
    if method not in METHODS:
        raise RetrievalError(f"unknown BM25 method {method!r}; choose one of {', '.join(METHODS)}")
    if k1 < 0 or not 0 <= b <= 1:
        raise RetrievalError(f"BM25 needs k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}")


def _built(batches: Iterable[Sequence[str]], k1: float, b: float, method: str,
           spill_folder: Path | None = None) -> bm25s.BM25:
    start = time.perf_counter()
    model = build_bm25(batches, k1=k1, b=b, method=method, spill_folder=spill_folder)
    logger.info("built the BM25 index (%d documents, %d distinct tokens) in %.1fs",
                model.scores["num_docs"], len(model.vocab_dict), time.perf_counter() - start)
    return model


class BM25Retriever:
    """BM25 retrieval; build with :meth:`build` or :meth:`load`, not the constructor.

    Every text goes through :func:`hopkit.retrieval.tokenize.tokenize` (lowercase,
    English stopwords, Snowball stemmer) at index and at query time alike.

    Args:
        model: an indexed ``bm25s.BM25`` whose rows follow ``corpus``.
        corpus: the paragraphs, in index order (id order when built or loaded here).
        vocabulary: token -> id (default: the model's ``vocab_dict``; a loaded index maps its
            vocabulary's files instead, :class:`MappedVocabulary`).

    Raises:
        RetrievalError: if the index and the corpus differ in size.
    """

    def __init__(self, model: bm25s.BM25, corpus: RankedCorpus,
                 vocabulary: MappedVocabulary | dict[str, int] | None = None) -> None:
        indexed = int(model.scores["num_docs"])
        if indexed != len(corpus):
            raise RetrievalError(f"the BM25 index holds {indexed} documents but the corpus {len(corpus)}")
        self.model = model
        self.corpus = corpus
        self.vocabulary = model.vocab_dict if vocabulary is None else vocabulary

    @classmethod
    def build(cls, paragraphs: Sequence[Paragraph], *, k1: float = BM25_DEFAULTS["k1"],
              b: float = BM25_DEFAULTS["b"], method: str = BM25_DEFAULTS["method"]) -> BM25Retriever:
        """Index ``paragraphs`` (title + text of each).

        Args:
            paragraphs: the corpus, with unique ids, in any order (the index keeps them in
                id order).
            k1: term-frequency saturation (Elasticsearch default 1.2).
            b: length normalisation (0..1).
            method: bm25s scoring variant, one of :data:`METHODS`.

        Returns:
            A ready retriever.

        Raises:
            RetrievalError: for an empty corpus, duplicate ids or a bad parameter.
        """
        _check_parameters(k1, b, method)
        if not paragraphs:
            raise RetrievalError("cannot build a BM25 index over an empty corpus")
        corpus = CorpusView(in_id_order(paragraphs))
        texts = [passage_text(p) for p in corpus.paragraphs]
        return cls(_built([texts[i:i + BUILD_BATCH] for i in range(0, len(texts), BUILD_BATCH)], k1, b, method),
                   corpus)

    @classmethod
    def build_from(cls, source: ParagraphSource, *, k1: float = BM25_DEFAULTS["k1"],
                   b: float = BM25_DEFAULTS["b"], method: str = BM25_DEFAULTS["method"],
                   spill_folder: Path | None = None) -> BM25Retriever:
        """Index a corpus too large to hold, read from ``source`` a batch at a time.

        The same index as :meth:`build` over the same paragraphs; memory grows with the
        index (8 bytes a distinct token of a paragraph), not with the texts, which are read,
        tokenised and dropped batch by batch. The postings wait on disk between the build's
        two passes (12 bytes each), in ``spill_folder`` (default: the system's temporary folder).

        Raises:
            RetrievalError: for an empty corpus or a bad parameter.
        """
        _check_parameters(k1, b, method)
        corpus = SourceView(source)
        if not len(corpus):
            raise RetrievalError("cannot build a BM25 index over an empty corpus")
        texts = ([passage_text(p) for p in batch] for batch in source.batches(BUILD_BATCH))
        model = _built(texts, k1, b, method, spill_folder)
        return cls(model, corpus)

    def save(self, directory: Path) -> None:
        """Write the index (not the paragraphs) to ``directory``, created if needed: bm25s's
        files, the vocabulary and row ids for loading processes to map, and hopkit's metadata, which
        records the CRC-32 of each of the other files (checked on load: :func:`_check_files`).

        Args:
            directory: where to write; existing index files are overwritten.
        """
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        self.model.save(str(directory), show_progress=False)
        write_vocabulary(directory, self.vocabulary)
        write_row_ids(directory, self.corpus)
        crcs = {path.name: file_crc32(path) for path in sorted(directory.iterdir())
                if path.is_file() and path.name != META_FILE and not path.name.startswith(".")}
        write_meta(directory, "bm25", self.corpus, tokenizer=TOKENIZER_ID, k1=self.model.k1,
                   b=self.model.b, method=self.model.method, bm25s_version=bm25s.__version__, file_crcs=crcs)

    @classmethod
    def load(cls, directory: Path, paragraphs: Sequence[Paragraph], *, mmap: bool = False) -> BM25Retriever:
        """Load an index written by :meth:`save` for exactly these ``paragraphs``.

        Args:
            directory: the folder :meth:`save` wrote.
            paragraphs: the same corpus as at build time, in any order.
            mmap: memory-map the score arrays instead of reading them into memory.

        Returns:
            A ready retriever.

        Raises:
            RetrievalError: if the folder holds no index, or one built with another
                tokeniser or for other paragraphs (then rebuild it); a
                :class:`~hopkit.retrieval.index_folders.ChangedIndexFile` naming a file whose bytes
                changed since the index was finished.
        """
        directory = Path(directory)
        meta = read_meta(directory, "bm25")
        _check_files(directory, meta)
        return cls._loaded(directory, meta, CorpusView(in_id_order(paragraphs)), mmap)

    @classmethod
    def load_from(cls, directory: Path, source: ParagraphSource, *, mmap: bool = True) -> BM25Retriever:
        """Load an index written by :meth:`save` for the corpus ``source`` holds, without reading
        its paragraphs: memory-mapped by default, so that processes on one machine share
        one copy of it in the page cache (the vocabulary and the rows' paragraph ids too).

        Raises:
            RetrievalError: as :meth:`load`.
        """
        directory = Path(directory)
        meta = read_meta(directory, "bm25")
        _check_files(directory, meta)  # before the row ids are mapped
        ids = mapped_row_ids(directory)
        retriever = cls._loaded(directory, meta, SourceView(source, ids=ids), mmap)
        if ids is None:  # written once the index is known to be this corpus's
            _add_to_older_index(directory, "row ids", lambda: write_row_ids(directory, retriever.corpus))
        return retriever

    @classmethod
    def _loaded(cls, directory: Path, meta: dict[str, object], corpus: RankedCorpus, mmap: bool) -> BM25Retriever:
        rebuild = f"delete {directory} and rebuild it with BM25Retriever.build(paragraphs).save(...)"
        if meta.get("tokenizer") != TOKENIZER_ID:
            raise RetrievalError(
                f"{directory / META_FILE}: index tokenised with {meta.get('tokenizer')!r}, this hopkit uses "
                f"{TOKENIZER_ID!r}; {rebuild}")
        check_corpus(directory, meta, corpus, rebuild)
        if not has_vocabulary(directory):
            _add_to_older_index(directory, "vocabulary", lambda: write_vocabulary(
                directory, json.loads((directory / BM25S_VOCAB_FILE).read_text(encoding="utf-8"))))
        mapped = has_vocabulary(directory)
        model = bm25s.BM25.load(str(directory), mmap=mmap, load_vocab=not mapped, show_progress=False)
        return cls(model, corpus, MappedVocabulary(directory) if mapped else None)

    def retrieve(
        self,
        query: str,
        k: int,
        exclude: Collection[int] = frozenset(),
        titles: Collection[str] | None = None,
    ) -> list[ScoredParagraph]:
        """Return at most ``k`` paragraphs sharing a term with ``query``, best first.

        Args:
            query: free text, tokenised like the index.
            k: how many paragraphs to return at most (more than the corpus is fine).
            exclude: paragraph ids never to return.
            titles: if given, only paragraphs whose title is in this collection.

        Returns:
            Distinct-text paragraphs with their BM25 scores; ``[]`` for a query with
            no indexed term (empty, stopwords only, or unseen words).

        Raises:
            RetrievalError: if ``k`` is negative.
        """
        if k < 0:
            raise RetrievalError(f"k must be >= 0, got {k}")
        found = map(self.vocabulary.get, tokenize(query))
        token_ids = [token_id for token_id in found if token_id is not None]
        if not token_ids or k == 0:
            return []
        scores = self.model.get_scores_from_ids(token_ids)
        return self.corpus.select(scores, k, exclude, titles, positive_only=True)


def _add_to_older_index(directory: Path, what: str, write: Callable[[], None]) -> None:
    """Write a file an index saved by an older hopkit lacks; where its folder is read-only, this
    process goes on without it (holding the same data in memory)."""
    try:
        write()
    except OSError as error:
        logger.warning("%s: cannot add the %s file that processes share (%s); each one holds its own copy",
                       directory, what, error)


def _check_files(directory: Path, meta: dict[str, object]) -> None:
    """Refuse an index one of whose files no longer has the CRC-32 its metadata recorded when it was finished
    (each read whole the first time and after it changed, then stamped so that while unchanged a load only
    ``stat``s it: :func:`hopkit.retrieval.mapped_files.matches_recorded_crc`). An index saved by an older
    hopkit recorded none and is not checked.

    Raises:
        ChangedIndexFile: naming the file (a changed, missing or unreadable one, or a bad record).
    """
    recorded = meta.get("file_crcs")
    if recorded is None:
        return
    if not isinstance(recorded, dict) or not all(
            isinstance(name, str) and Path(name).name == name and name not in ("", ".", "..")
            and isinstance(crc, int) and not isinstance(crc, bool) for name, crc in recorded.items()):
        raise ChangedIndexFile(directory / META_FILE, f"{directory / META_FILE}: field 'file_crcs' is not a "
                                                      "CRC-32 by file name")
    for name, crc in recorded.items():
        path = directory / name
        try:
            matches = matches_recorded_crc(path, crc)
        except OSError as error:
            raise ChangedIndexFile(path, f"{path}: cannot read this file of a finished BM25 index "
                                         f"({error.strerror or error})") from None
        if not matches:
            raise ChangedIndexFile(path, f"{path}: its bytes no longer match the CRC-32 recorded when the "
                                         "BM25 index was finished")
