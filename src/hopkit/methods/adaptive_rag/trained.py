"""A light query complexity classifier that trains on these CPUs in seconds: multinomial logistic
regression over hashed word unigrams and bigrams of the question, in numpy (the paper trains T5-large;
this is hopkit's default where no such model is at hand). Saved as one ``.npz`` file that names its
kind, version and label set, so a router refuses a file that is not one or was trained for other labels.
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from hopkit.errors import ConfigError

KIND = "hopkit-adaptive-rag-classifier"
VERSION = 1
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
        run's id holds the file's digest)."""
        arrays = {"kind": np.array(KIND), "version": np.array(VERSION), "labels": np.array(self.labels),
                  "weights": self.weights, "bias": self.bias}
        path.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(path, "w") as archive:
            for name, array in arrays.items():
                data = io.BytesIO()
                np.lib.format.write_array(data, np.asanyarray(array), allow_pickle=False)
                archive.writestr(zipfile.ZipInfo(f"{name}.npy", date_time=_FIXED_TIME), data.getvalue())


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

    Raises:
        ConfigError: the file is missing or not a classifier file (naming it), or is for other labels.
    """
    path = Path(path).expanduser()
    if not path.is_file():
        raise ConfigError(f"{path}: no classifier file there; train one with `hopkit train-router` "
                          "or use classifier: prompted")
    try:
        with np.load(path, allow_pickle=False) as saved:
            kind, version = str(saved["kind"]), int(saved["version"])
            labels = tuple(str(label) for label in saved["labels"])
            weights, bias = np.array(saved["weights"], dtype=np.float64), np.array(saved["bias"], dtype=np.float64)
    except (OSError, ValueError, KeyError) as exc:
        raise ConfigError(f"{path}: not an Adaptive-RAG classifier file ({exc})") from None
    if kind != KIND or version != VERSION:
        raise ConfigError(f"{path}: a {kind!r} file of version {version}, not a {KIND!r} file of version {VERSION}")
    if labels != tuple(label_set):
        raise ConfigError(f"{path}: trained for the labels {list(labels)}, not {list(label_set)}")
    if weights.ndim != 2 or weights.shape[0] != len(labels) or bias.shape != (len(labels),) \
            or not np.isfinite(weights).all() or not np.isfinite(bias).all():
        raise ConfigError(f"{path}: its weights do not fit its {len(labels)} labels, or are not finite numbers")
    return TrainedClassifier(labels, weights, bias)
