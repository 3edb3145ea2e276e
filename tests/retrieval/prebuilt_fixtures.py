"""FAISS indexes in the published layout, made by the tests: the real all-MiniLM-L6-v2's vectors of a wiki-18
JSONL file's ``contents`` (title line and text, as FlashRAG's index builder embeds them), unit length, one row
per line in file order, in a Flat or an HNSW inner-product index (FlashRAG's ``faiss.index_factory(dim, "Flat"
/ "HNSW64", METRIC_INNER_PRODUCT)``), written with ``faiss.write_index``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.data.corpus_fixtures import wiki18_file

PASSAGES = 300
FIRST_ID = 7  # the file's ids start at 7, not 0: a row is a position in the file, not a source id


def minilm_or_skip(monkeypatch: pytest.MonkeyPatch) -> None:
    """Point ``$HOPKIT_MODEL_DIR`` at the folder holding the real all-MiniLM-L6-v2, or skip."""
    from tests.retrieval.test_sentence_embedders import LOCAL_MODELS, minilm_folder

    models = minilm_folder()
    if models is None:
        pytest.skip(f"no all-MiniLM-L6-v2 in $HOPKIT_MODEL_DIR or {LOCAL_MODELS} "
                    "(../shared/tools/install-local-models.sh DEST embed)")
    monkeypatch.setenv("HOPKIT_MODEL_DIR", str(models))


def contents_of(path: Path) -> list[str]:
    """Each line's ``contents``, in file order."""
    return [json.loads(line)["contents"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def minilm_vectors(path: Path) -> np.ndarray:
    """The unit float32 MiniLM vectors of the file's passages, in file order."""
    from hopkit.retrieval.embedders import embed_passages, load_embedder

    vectors = embed_passages(load_embedder("minilm"), contents_of(path)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def write_index(vectors: np.ndarray, path: Path, kind: str = "Flat") -> Path:
    """``vectors`` in a FAISS inner-product index of ``kind`` (``Flat``, ``HNSW16``...) written to ``path``."""
    import faiss

    index = faiss.index_factory(vectors.shape[1], kind, faiss.METRIC_INNER_PRODUCT)
    rows = np.ascontiguousarray(vectors, dtype=np.float32)
    if not index.is_trained:  # an IVF index's lists are trained on the vectors, as FlashRAG's builder does
        index.train(rows)
    index.add(rows)
    faiss.write_index(index, str(path))
    return path


def wiki_and_vectors(folder: Path) -> tuple[Path, np.ndarray]:
    """A wiki-18 file of :data:`PASSAGES` passages (ids from :data:`FIRST_ID`) and its MiniLM vectors."""
    wiki = wiki18_file(folder / "wiki-18.jsonl", PASSAGES, FIRST_ID)
    return wiki, minilm_vectors(wiki)
