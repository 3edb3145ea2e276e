"""Scripted judges for unit tests: scores from a table or a function, every call recorded.

Each double answers from its ``script``: a mapping (looked up by text or by pair) or a
function of the two strings of an item. A key missing from a mapping takes ``default``
when one is given and raises otherwise, so a test never passes on a value nobody
scripted. Every call is recorded in ``calls`` and timed under the judge's usage
component like a real backend.
"""

from __future__ import annotations

from typing import Callable, Generic, Hashable, Mapping, Sequence, TypeVar

from hopkit.errors import ConfigError
from hopkit.judges.protocol import ANSWER, ENTAILMENT, RELEVANCE, SIMILARITY, SpanAnswer
from hopkit.judges.timing import timed

Key = TypeVar("Key", bound=Hashable)
Value = TypeVar("Value")


class _Script(Generic[Key, Value]):
    """A table or a function of two strings, with an optional default for missing keys."""

    def __init__(self, owner: str, script: Mapping[Key, Value] | Callable[[str, str], Value],
                 default: Value | None) -> None:
        if not callable(script) and not isinstance(script, Mapping):
            raise ConfigError(f"{owner}: the script must be a mapping or a function, got {type(script).__name__}")
        self.owner = owner
        self.script = script
        self.default = default

    def value(self, keys: Sequence[Key], first: str, second: str) -> Value:
        """The function's value for ``(first, second)``, or the table's for the first of ``keys`` it has."""
        if callable(self.script):
            return self.script(first, second)
        for key in keys:
            if key in self.script:
                return self.script[key]
        if self.default is not None:
            return self.default
        scripted = ", ".join(repr(key) for key in list(self.script)[:5]) or "nothing"
        raise ConfigError(f"{self.owner} has no scripted value for {keys[0]!r} and no default; scripted: {scripted}")


class ScriptedRelevance:
    """Relevance from a table ``text -> score`` or a function ``(query, text) -> score``.

    Args:
        script: the scores.
        default: the score of a text missing from the table (None: raise).
    """

    judge_id = "scripted"

    def __init__(self, script: Mapping[str, float] | Callable[[str, str], float], *,
                 default: float | None = None) -> None:
        self._script: _Script[str, float] = _Script("ScriptedRelevance", script, default)
        self.calls: list[tuple[str, tuple[str, ...]]] = []

    @timed(RELEVANCE)
    def relevance(self, query: str, texts: Sequence[str]) -> list[float]:
        """The scripted score of each text.

        Raises:
            ConfigError: a text has no scripted score and there is no default.
        """
        self.calls.append((query, tuple(texts)))
        return [float(self._script.value([text], query, text)) for text in texts]


class ScriptedEntailment:
    """Entailment from a table ``(premise, hypothesis) -> probability`` or a function of the two.

    Args:
        script: the probabilities.
        default: the probability of a pair missing from the table (None: raise).
    """

    judge_id = "scripted"

    def __init__(self, script: Mapping[tuple[str, str], float] | Callable[[str, str], float], *,
                 default: float | None = None) -> None:
        self._script: _Script[tuple[str, str], float] = _Script("ScriptedEntailment", script, default)
        self.calls: list[tuple[tuple[str, str], ...]] = []

    @timed(ENTAILMENT)
    def entailment(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """The scripted probability of each ``(premise, hypothesis)``.

        Raises:
            ConfigError: a pair has no scripted probability and there is no default.
        """
        self.calls.append(tuple(pairs))
        return [float(self._script.value([(premise, hypothesis)], premise, hypothesis))
                for premise, hypothesis in pairs]


class ScriptedAnswer:
    """Answers from a table ``(question, passage) -> SpanAnswer`` or a function of the two.

    Args:
        script: the answers.
        default: the answer for a pair missing from the table (None: raise).
    """

    judge_id = "scripted"

    def __init__(self, script: Mapping[tuple[str, str], SpanAnswer] | Callable[[str, str], SpanAnswer], *,
                 default: SpanAnswer | None = None) -> None:
        self._script: _Script[tuple[str, str], SpanAnswer] = _Script("ScriptedAnswer", script, default)
        self.calls: list[tuple[tuple[str, str], ...]] = []

    @timed(ANSWER)
    def answer(self, pairs: Sequence[tuple[str, str]]) -> list[SpanAnswer]:
        """The scripted answer of each ``(question, passage)``.

        Raises:
            ConfigError: a pair has no scripted answer and there is no default.
        """
        self.calls.append(tuple(pairs))
        return [self._script.value([(question, passage)], question, passage) for question, passage in pairs]


class ScriptedSimilarity:
    """Similarity from a table ``(text, other) -> score`` (either order) or a function of the two.

    Args:
        script: the scores.
        default: the score of a pair missing from the table (None: raise).
    """

    judge_id = "scripted"

    def __init__(self, script: Mapping[tuple[str, str], float] | Callable[[str, str], float], *,
                 default: float | None = None) -> None:
        self._script: _Script[tuple[str, str], float] = _Script("ScriptedSimilarity", script, default)
        self.calls: list[tuple[str, tuple[str, ...]]] = []

    @timed(SIMILARITY)
    def similarity(self, text: str, others: Sequence[str]) -> list[float]:
        """The scripted score of ``text`` against each other text.

        Raises:
            ConfigError: a pair has no scripted score (in either order) and there is no default.
        """
        self.calls.append((text, tuple(others)))
        return [float(self._script.value([(text, other), (other, text)], text, other)) for other in others]
