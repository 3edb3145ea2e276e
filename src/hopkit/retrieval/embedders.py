"""Text embedding models for dense retrieval: the protocol, two real backends and a test double.

An embedder may embed queries and passages differently (E5's ``"query: "`` and ``"passage: "``):
it then has ``embed_queries`` and ``embed_passages`` (:func:`embed_queries`, :func:`embed_passages`
use them when it has them, ``embed`` otherwise).
"""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any, Protocol, Sequence, runtime_checkable

import numpy as np

from hopkit.errors import RetrievalError, UnknownNameError
from hopkit.retrieval.sentence_embedders import SentenceTransformerEmbedder
from hopkit.retrieval.tokenize import tokenize

DEFAULT_EMBEDDER = "wordllama:l2_supercat:256"
#: The short name of :data:`DEFAULT_EMBEDDER`, the one a retrieval config writes (and a run's identity records).
DEFAULT_EMBEDDER_NAME = "wordllama"
# Short names of the embedders hopkit's retrieval configs use (docs/configs.md says where each comes from).
ALIASES: dict[str, str] = {
    DEFAULT_EMBEDDER_NAME: DEFAULT_EMBEDDER,
    "minilm": "sentence-transformers:sentence-transformers/all-MiniLM-L6-v2",
    "e5-base-v2": "sentence-transformers:intfloat/e5-base-v2",
    "bge-small": "sentence-transformers:BAAI/bge-small-en-v1.5",
}


@runtime_checkable
class Embedder(Protocol):
    """Maps texts to vectors; ``model_id`` names the model (saved with every dense index)."""

    model_id: str

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return an array of shape ``(len(texts), dim)``."""
        ...


def embed_queries(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """``embedder``'s vectors of ``texts`` as queries (its ``embed_queries`` when it has one)."""
    method = getattr(embedder, "embed_queries", None)
    return np.asarray(method(texts) if callable(method) else embedder.embed(texts))


def embed_passages(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """``embedder``'s vectors of ``texts`` as passages (its ``embed_passages`` when it has one)."""
    method = getattr(embedder, "embed_passages", None)
    return np.asarray(method(texts) if callable(method) else embedder.embed(texts))


class WordLlamaEmbedder:
    """WordLlama static embeddings (token embeddings average-pooled; fast on CPU).

    Args:
        model: a loaded ``wordllama`` inference object.
        model_id: ``"wordllama:<config>:<dim>"``.
    """

    def __init__(self, model: Any, model_id: str) -> None:
        self.model = model
        self.model_id = model_id

    @classmethod
    def load(cls, config: str = "l2_supercat", dim: int = 256, *, allow_download: bool = False) -> WordLlamaEmbedder:
        """Load the weights and tokenizer the ``wordllama`` package ships (no network by default).

        Args:
            config: a WordLlama configuration name.
            dim: the embedding size (the package ships 256 for ``l2_supercat``).
            allow_download: fetch missing files from Hugging Face into ``~/.cache/wordllama``.

        Returns:
            The embedder.

        Raises:
            RetrievalError: if the weights are not available offline (or the download fails).
        """
        import wordllama
        from wordllama import WordLlama

        # wordllama looks for its bundled tokenizer in a folder that does not exist
        # ("tokenizer/") before trying "<cache_dir>/tokenizers/"; pointing cache_dir at
        # the package finds both bundled files without any download.
        package_dir = Path(wordllama.__file__).parent
        try:
            if allow_download:
                model = WordLlama.load(config=config, dim=dim)
            else:
                model = WordLlama.load(config=config, dim=dim, cache_dir=package_dir, disable_download=True)
        except (FileNotFoundError, ValueError, AttributeError) as error:
            raise RetrievalError(
                f"cannot load WordLlama {config!r} dim {dim} from {package_dir} ({error}); the package ships "
                f"l2_supercat at dim 256, or pass allow_download=True to fetch other sizes") from error
        return cls(model, f"wordllama:{config}:{dim}")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` (not normalised), as float32 ``(len(texts), dim)``."""
        if not texts:
            return np.zeros((0, self.model.embedding.shape[1]), dtype=np.float32)
        return np.asarray(self.model.embed(list(texts), norm=False), dtype=np.float32)


class HashingEmbedder:
    """A dependency-free embedder for tests: token counts hashed into ``dim`` buckets.

    Texts go through :func:`hopkit.retrieval.tokenize.tokenize`, so texts sharing
    stemmed words get a positive cosine similarity; deterministic across runs.

    Args:
        dim: the vector size.
    """

    def __init__(self, dim: int = 64) -> None:
        if dim < 1:
            raise RetrievalError(f"HashingEmbedder needs dim >= 1, got {dim}")
        self.dim = dim
        self.model_id = f"hashing:{dim}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` as float32 ``(len(texts), dim)`` token-count vectors."""
        vectors = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in tokenize(text):
                vectors[row, zlib.crc32(token.encode("utf-8")) % self.dim] += 1.0
        return vectors


def load_embedder(spec: str) -> Embedder:
    """Load an embedder from its ``model_id``.

    Args:
        spec: ``"wordllama:<config>:<dim>"``, ``"sentence-transformers:<model name or folder>"``,
            ``"hashing:<dim>"`` (the test double), a short name of :data:`ALIASES` (``minilm``,
            ``e5-base-v2``, ``bge-small``, ``wordllama``), or a Hub name ``OWNER/NAME`` of a
            sentence-transformers model.

    Returns:
        The embedder, whose ``model_id`` equals ``spec``.

    Raises:
        UnknownNameError: for another backend name.
        RetrievalError: if the model cannot be loaded.
    """
    spec = ALIASES.get(spec, spec)
    if ":" not in spec and "/" in spec:
        spec = f"sentence-transformers:{spec}"
    backend, _, rest = spec.partition(":")
    if backend == "wordllama":
        config, _, dim = rest.partition(":")
        if not config or not dim.isdigit():
            raise RetrievalError(f"embedder {spec!r}: write it as 'wordllama:<config>:<dim>', e.g. {DEFAULT_EMBEDDER!r}")
        return WordLlamaEmbedder.load(config, int(dim))
    if backend == "hashing":
        if not rest.isdigit():
            raise RetrievalError(f"embedder {spec!r}: write it as 'hashing:<dim>', e.g. 'hashing:64'")
        return HashingEmbedder(int(rest))
    if backend == "sentence-transformers":
        if not rest:
            raise RetrievalError(f"embedder {spec!r}: write it as 'sentence-transformers:<model name>'")
        return SentenceTransformerEmbedder.load(rest)
    raise UnknownNameError("embedder", spec, [*ALIASES, "wordllama:<config>:<dim>",
                                              "sentence-transformers:<model name>", "OWNER/NAME", "hashing:<dim>"])
