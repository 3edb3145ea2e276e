"""A light query complexity classifier that trains on these CPUs in seconds: multinomial logistic
regression over hashed word unigrams and bigrams of the question, in numpy (the paper trains T5-large;
this is hopkit's default where no such model is at hand). Saved as one ``.npz`` file that names its
kind, version and label set, so a router refuses a file that is not one or was trained for other labels.
"""

from __future__ import annotations

import io
import math
import os
import re
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from hopkit.errors import ConfigError
from hopkit.retrieval.mapped_files import write_atomically

KIND = "hopkit-adaptive-rag-classifier"
VERSION = 1
MAX_LABELS = 64  # labels a classifier file may name (Adaptive-RAG's are three)
MAX_BUCKETS = 1 << 20  # hashed features per label a classifier file may hold (train()'s default is 4,096)
MAX_FLOAT_BYTES = 8  # float64
MAX_TEXT_BYTES = 64 << 10  # the kind, the version or the label names
_WORD = re.compile(r"\w+")
# the archive members' time stamp: a fixed one, so that saving is byte for byte repeatable
_FIXED_TIME = (1980, 1, 1, 0, 0, 0)


def features(question: str, buckets: int) -> np.ndarray:
    """The question's hashed unigram and bigram counts, scaled to unit length."""
    words = _WORD.findall(question.lower())
    grams = words + [f"{a} {b}" for a, b in zip(words, words[1:])]
    vector = np.zeros(buckets, dtype=np.float64)
    for gram in grams:
        vector[zlib.crc32(gram.encode("utf-8")) % buckets] += 1.0
    norm = np.linalg.norm(vector)
    return vector / norm if norm else vector


@dataclass(frozen=True)
class TrainedClassifier:
    """Weights over hashed features, one row per label."""

    labels: tuple[str, ...]
    weights: np.ndarray
    bias: np.ndarray

    @property
    def buckets(self) -> int:
        return int(self.weights.shape[1])

    def probabilities(self, question: str) -> dict[str, float]:
        logits = self.weights @ features(question, self.buckets) + self.bias
        exp = np.exp(logits - logits.max())
        return dict(zip(self.labels, (exp / exp.sum()).tolist()))

    def classify(self, question: str) -> str:
        return self.label_of(self.probabilities(question))

    def label_of(self, probabilities: dict[str, float]) -> str:
        """The most probable label (the first of equals, in label order)."""
        return max(self.labels, key=lambda label: probabilities[label])

    def save(self, path: Path) -> None:
        """Write the classifier as a ``.npz`` file; the same classifier always gives the same bytes (a routed
        run's id holds the file's digest). Written beside ``path``, flushed to disk, then renamed over it: a
        save that is killed leaves the file that was there, never an empty or partial one."""
        arrays = {"kind": np.array(KIND), "version": np.array(VERSION), "labels": np.array(self.labels),
                  "weights": self.weights, "bias": self.bias}

        def write(temporary: Path) -> None:
            with open(temporary, "wb") as file:
                with zipfile.ZipFile(file, "w") as archive:
                    for name, array in arrays.items():
                        data = io.BytesIO()
                        np.lib.format.write_array(data, np.asanyarray(array), allow_pickle=False)
                        archive.writestr(zipfile.ZipInfo(f"{name}.npy", date_time=_FIXED_TIME), data.getvalue())
                file.flush()
                os.fsync(file.fileno())

        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, write)


def train(questions: Sequence[str], labels: Sequence[str], label_set: Sequence[str], *, buckets: int = 4096,
          epochs: int = 300, learning_rate: float = 0.5, l2: float = 1e-3) -> TrainedClassifier:
    """Fit the classifier by full-batch gradient descent on the cross-entropy (deterministic).

    Raises:
        ConfigError: no questions, or a label outside ``label_set``.
    """
    if not questions or len(questions) != len(labels):
        raise ConfigError(f"training the classifier needs questions and as many labels, got {len(questions)} "
                          f"and {len(labels)}")
    unknown = sorted(set(labels) - set(label_set))
    if unknown:
        raise ConfigError(f"training labels {unknown} are not in the label set {list(label_set)}")
    x = np.stack([features(q, buckets) for q in questions])
    y = np.zeros((len(labels), len(label_set)))
    y[np.arange(len(labels)), [list(label_set).index(label) for label in labels]] = 1.0
    weights = np.zeros((len(label_set), buckets))
    bias = np.zeros(len(label_set))
    for _ in range(epochs):
        logits = x @ weights.T + bias
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        error = (p - y) / len(labels)
        weights -= learning_rate * (error.T @ x + l2 * weights)
        bias -= learning_rate * error.sum(axis=0)
    return TrainedClassifier(tuple(label_set), weights, bias)


def load_classifier(path: str | Path, label_set: Sequence[str]) -> TrainedClassifier:
    """A saved classifier, checked to be one and to be trained for ``label_set``.

    Each member's ``.npy`` header (shape, dtype) is read and checked against what a classifier for
    ``label_set`` holds before its data is: a file declaring more than :data:`MAX_BUCKETS` features
    (a zip bomb of zeros, say) is refused without allocating it.

    Raises:
        ConfigError: the file is missing, empty or not a classifier file, a member has the wrong shape,
            type or size (naming the file and the member), or the file is for other labels.
    """
    path = Path(path).expanduser()
    if not path.is_file():
        raise ConfigError(f"{path}: no classifier file there; train one with `hopkit train-router` "
                          "or use classifier: prompted")
    try:
        if path.stat().st_size == 0:
            raise ConfigError(f"{path}: an empty file, not an Adaptive-RAG classifier (left by a `hopkit "
                              "train-router` that did not finish, or a failed copy); train it again")
        with zipfile.ZipFile(path) as archive:
            kind = str(_member(path, archive, "kind", "U", lambda shape: shape == (), "one string", MAX_TEXT_BYTES))
            version = _member(path, archive, "version", "iu", lambda shape: shape == (), "one integer",
                              MAX_TEXT_BYTES)
            if kind != KIND or int(version) != VERSION:
                raise ConfigError(f"{path}: a {kind!r} file of version {int(version)}, not a {KIND!r} file of "
                                  f"version {VERSION}")
            labels = tuple(str(label) for label in _member(
                path, archive, "labels", "U", lambda shape: len(shape) == 1 and 1 <= shape[0] <= MAX_LABELS,
                f"1 to {MAX_LABELS} label names", MAX_TEXT_BYTES))
            if labels != tuple(label_set):
                raise ConfigError(f"{path}: trained for the labels {list(labels)}, not {list(label_set)}")
            weights = _member(path, archive, "weights", "f",
                              lambda shape: len(shape) == 2 and shape[0] == len(labels)
                              and 1 <= shape[1] <= MAX_BUCKETS,
                              f"({len(labels)}, at most {MAX_BUCKETS:,}) numbers",
                              len(labels) * MAX_BUCKETS * MAX_FLOAT_BYTES)
            bias = _member(path, archive, "bias", "f", lambda shape: shape == (len(labels),),
                           f"({len(labels)},) numbers", len(labels) * MAX_FLOAT_BYTES)
    except (OSError, zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, zlib.error, NotImplementedError) as exc:
        raise ConfigError(f"{path}: not an Adaptive-RAG classifier file ({type(exc).__name__}: "
                          f"{str(exc).splitlines()[0] if str(exc) else 'unreadable'})") from None
    weights, bias = weights.astype(np.float64), bias.astype(np.float64)
    if not np.isfinite(weights).all() or not np.isfinite(bias).all():
        raise ConfigError(f"{path}: its weights do not fit its {len(labels)} labels, or are not finite numbers")
    return TrainedClassifier(labels, weights, bias)


def _member(path: Path, archive: zipfile.ZipFile, name: str, kinds: str, shape_fits: Callable[[tuple[int, ...]], bool],
            expected: str, max_bytes: int) -> np.ndarray:
    """The array in the archive's member ``name.npy``, its header checked before its data is read: the
    shape by ``shape_fits`` (``expected`` says what fits), the dtype's kind among ``kinds`` (numpy's
    letters), its size at most ``max_bytes``.

    Raises:
        ConfigError: naming the file and the member.
    """
    where = f"{path}: member '{name}.npy'"
    try:
        info = archive.getinfo(f"{name}.npy")
    except KeyError:
        raise ConfigError(f"{where} is missing: not an Adaptive-RAG classifier file") from None
    with archive.open(info) as stream:
        try:
            version = np.lib.format.read_magic(stream)
            read_header = {(1, 0): np.lib.format.read_array_header_1_0,
                           (2, 0): np.lib.format.read_array_header_2_0}.get(version)
            if read_header is None:
                raise ValueError(f"an .npy header of version {version[0]}.{version[1]}")
            shape, fortran_order, dtype = read_header(stream)
        except ValueError as exc:
            raise ConfigError(f"{where}: not a numpy array ({str(exc).splitlines()[0]})") from None
        shape = tuple(int(size) for size in shape)
        if dtype.hasobject or dtype.kind not in kinds or not shape_fits(shape):
            raise ConfigError(f"{where} declares shape {shape} of {dtype}, not {expected}: not an Adaptive-RAG "
                              "classifier file")
        size = math.prod(shape) * dtype.itemsize
        if size > max_bytes:
            raise ConfigError(f"{where} declares {size:,} bytes ({shape} of {dtype}), more than a classifier's "
                              f"{max_bytes:,}: not an Adaptive-RAG classifier file")
        data = stream.read(size)
    if len(data) != size:
        raise ConfigError(f"{where} is cut short: {len(data):,} of its {size:,} bytes")
    array = np.frombuffer(data, dtype=dtype)
    return array.reshape(shape[::-1]).T if fortran_order else array.reshape(shape)
