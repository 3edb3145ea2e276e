"""Stream a corpus file into the store as a named corpus, resumably (``hopkit corpus add``).

Memory stays at one batch whatever the file's size. Each batch is committed with the count of passages
stored (:meth:`~hopkit.store.named_corpora.NamedCorpora.append`); killed at any point, the same call
passes over the passages already stored (read, not parsed, for the JSONL formats) and goes on; the corpus
is marked complete only after its last passage.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from tqdm import tqdm

from hopkit.data.corpus_source import CorpusSource, SourcePassage
from hopkit.store.named_corpora import NamedCorpora, NamedCorpusInfo

BATCH = 10_000


@dataclass(frozen=True)
class CorpusIngest:
    """What one ``corpus add`` did: the corpus as stored now, how many passages were already stored when
    it started (a resume) and how many it added."""

    corpus: NamedCorpusInfo
    resumed_from: int
    added: int


def add_corpus_file(corpora: NamedCorpora, name: str, source: CorpusSource, *, batch: int = BATCH,
                    replace: bool = False, progress: bool = True, origin: str | None = None) -> CorpusIngest:
    """Store the corpus file ``source`` as the named corpus ``name``, or finish storing it.

    Args:
        corpora: the store's named corpora.
        name: the corpus's name.
        source: the file and its format.
        batch: passages committed at a time (what a kill can lose and the command redoes).
        replace: store the file in place of a corpus of that name stored from another file or complete.
        progress: show a progress bar (passages, passages/s, time left) on a terminal.
        origin: what the corpus is stored from, when not the file's path: the ``hf://`` name of a file
            downloaded from the Hub (a resume then needs no path).

    Raises:
        DataError: a bad record in the file (naming file, line and field); what was committed before it
            is kept, and the command resumes once the file is fixed.
        StoreError: as :meth:`NamedCorpora.begin` and :meth:`NamedCorpora.append` say.
    """
    if batch < 1:
        raise ValueError(f"batch must be at least 1, got {batch}")
    info = corpora.begin(name, source=origin or str(Path(source.path).resolve()), format=source.format,
                         source_bytes=source.size, replace=replace)
    if info.complete:
        return CorpusIngest(info, info.passages, 0)
    stored = start = info.passages
    size = max(source.size, 1)
    with tqdm(desc=f"storing corpus {name}", unit=" passages", unit_scale=True, initial=start,
              disable=None if progress else True, mininterval=1, smoothing=0.1) as bar:
        for chunk in _chunks(source.passages(skip=start), batch):
            stored = corpora.append(info.corpus_id, stored, chunk)
            bar.update(len(chunk))
            done = source.bytes_read()
            if done > 0:  # the passages the file holds, estimated from how far into it the reading is
                bar.total = max(stored, round(stored * size / done))
        bar.total = stored
        bar.refresh()
    with tqdm(desc=f"fingerprinting corpus {name}", unit=" passages", unit_scale=True, total=stored,
              disable=None if progress else True, mininterval=1, smoothing=0.1) as bar:
        final = corpora.finish(info.corpus_id, on_batch=bar.update)
    return CorpusIngest(final, start, stored - start)


def _chunks(passages: Iterator[SourcePassage], size: int) -> Iterator[list[SourcePassage]]:
    while chunk := list(islice(passages, size)):
        yield chunk
