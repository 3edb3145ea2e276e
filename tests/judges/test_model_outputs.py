"""The pure parts of the dedicated backends: the best answer span, the entailment label."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from hopkit.errors import ConfigError
from hopkit.judges.extractive import best_span
from hopkit.judges.nli import entailment_index

pytestmark = pytest.mark.unit


def brute_force(start: np.ndarray, end: np.ndarray, allowed: np.ndarray, max_tokens: int) -> float:
    return max((start[i] + end[j] for i, j in itertools.product(range(len(start)), repeat=2)
                if allowed[i] and allowed[j] and 0 <= j - i < max_tokens), default=-math.inf)


def test_the_best_span_is_the_best_allowed_ordered_short_pair() -> None:
    start = np.array([9.0, 1.0, 3.0, 0.0, 2.0], dtype=np.float32)  # token 0 ([CLS]) is not in the passage
    end = np.array([9.0, 0.0, 1.0, 5.0, 0.5], dtype=np.float32)
    allowed = np.array([False, True, True, True, True])
    assert best_span(start, end, allowed, 30) == (2, 3, 8.0)
    assert best_span(start, end, allowed, 1) == (3, 3, 5.0)  # one token at most
    backwards = np.array([0.0, 0.0, 0.0, 0.0, 9.0]), np.array([0.0, 9.0, 0.0, 0.0, 0.0])
    i, j, _ = best_span(*backwards, allowed, 30)
    assert i <= j  # never an end before its start
    assert best_span(start, end, np.zeros(5, dtype=bool), 30) == (-1, -1, -math.inf)


def test_the_best_span_matches_a_brute_force_search() -> None:
    rng = np.random.default_rng(0)
    for _ in range(50):
        size = int(rng.integers(1, 12))
        start, end = rng.normal(size=size), rng.normal(size=size)
        allowed = rng.random(size) < 0.7
        max_tokens = int(rng.integers(1, 5))
        assert best_span(start, end, allowed, max_tokens)[2] == pytest.approx(brute_force(start, end, allowed,
                                                                                          max_tokens))


def test_the_entailment_label_is_found_in_id2label() -> None:
    assert entailment_index({0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"}, "m") == 1
    assert entailment_index({"0": "entailment", "1": "not_entailment"}, "m") == 0
    assert entailment_index({0: "LABEL_0", 1: "LABEL_1"}, "m", label="label_1") == 1
    with pytest.raises(ConfigError, match=r"NLI model 'm': expected one label starting with 'entail' in its "
                                          r"config's id2label, found \[\(0, 'LABEL_0'\), \(1, 'LABEL_1'\)\]; name "
                                          r"the entailment label with the option 'label'"):
        entailment_index({0: "LABEL_0", 1: "LABEL_1"}, "m")
