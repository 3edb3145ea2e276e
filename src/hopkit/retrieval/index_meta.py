"""The metadata file every saved hopkit index carries, and the checks made on load."""

from __future__ import annotations

import json
from pathlib import Path

from hopkit.errors import RetrievalError
from hopkit.retrieval.corpus_view import RankedCorpus

META_FILE = "hopkit_index.json"
# 2: rows in paragraph id order and the store's corpus fingerprint (format 1 had rows in
# the order given and a fingerprint of its own). hopkit.retrieval.index_store puts the
# format in the folder name, so format-1 folders are left alone and rebuilt beside.
FORMAT = 2


def write_meta(directory: Path, kind: str, corpus: RankedCorpus, **extra: object) -> None:
    """Write ``META_FILE`` (kind, format, paragraph count and fingerprint, plus ``extra``) into ``directory``."""
    meta = {"format": FORMAT, "kind": kind, "count": len(corpus), "fingerprint": corpus.fingerprint, **extra}
    (directory / META_FILE).write_text(json.dumps(meta, indent=2), encoding="utf-8")


def read_meta(directory: Path, kind: str) -> dict[str, object]:
    """Read and check the hopkit metadata file of an index folder.

    Raises:
        RetrievalError: if it is missing, unreadable, or of another kind or format.
    """
    path = directory / META_FILE
    if not path.is_file():
        raise RetrievalError(f"no hopkit {kind} index at {directory} (missing {META_FILE}); build it first")
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise RetrievalError(f"{path}: cannot read the index metadata ({error}); delete {directory} and rebuild") from error
    if not isinstance(meta, dict) or meta.get("kind") != kind or meta.get("format") != FORMAT:
        raise RetrievalError(f"{path}: not a format-{FORMAT} hopkit {kind} index; delete {directory} and rebuild")
    return meta


def check_corpus(directory: Path, meta: dict[str, object], corpus: RankedCorpus, rebuild: str) -> None:
    """Refuse an index built for other paragraphs (count, then content fingerprint).

    Raises:
        RetrievalError: naming the folder and how to rebuild.
    """
    if meta.get("count") != len(corpus):
        raise RetrievalError(
            f"{directory}: index built for {meta.get('count')} paragraphs, given {len(corpus)}; {rebuild}")
    if meta.get("fingerprint") != corpus.fingerprint:
        raise RetrievalError(
            f"{directory}: index built for other paragraphs (same count, different ids, titles or "
            f"texts); {rebuild}")
