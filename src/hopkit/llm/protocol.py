"""The one interface every language model backend offers, and the optional capabilities some add.

Every backend is an :class:`LLM` (``complete`` and ``count_tokens``). A backend that
can do more says so in its ``capabilities`` (a frozenset of capability names) and has
the matching method:

- ``"early_stop"``: ``complete_until(prompt, done, ...)`` (:class:`StreamingLLM`), a
  completion ended as soon as a predicate on the text so far holds;
- ``"scoring"``: ``score_continuations(prompt, candidates)`` (:class:`ScoringLLM`), the
  log-probability of each candidate continuation, as :class:`Scores`;
- ``"chat"``: ``complete_chat(messages, ...)`` (:class:`ChatLLM`), the answer to system
  and user turns laid out by the model's own chat template (or a server's chat endpoint);
- ``"sampling"``: ``complete_sample(prompt, sample, ...)`` (:class:`SamplingLLM`), the
  ``sample``-th of several independent samples of one prompt (each its own seed);
- ``"attention"``: ``complete_attended(prompt, ...)`` and ``attend(text)`` (:class:`AttendingLLM`), a
  completion with each generated token's entropy and the model's last-layer attention, and that
  attention over any text (DRAGIN's RIND and QFS; the ``transformers`` backend has it).

Ask with :func:`hopkit.llm.capabilities.supports` (or ``require``, which raises), never by
looking for the method: wrappers such as ``CachedLLM`` and ``MeteredLLM`` always have the
methods but declare exactly the capabilities of the model they wrap, and raise
:class:`LLMError` when the wrapped model lacks one. An LLM without ``capabilities`` has none.
Every capability's methods are listed once, in
:data:`hopkit.llm.capabilities.CAPABILITY_METHOD_TABLE`, from which the wrappers forward them
(a new capability is its protocol class here and its rows there).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Final, Iterator, Literal, Protocol, Sequence, runtime_checkable

import numpy as np

from hopkit.clean_text import clean_text
from hopkit.errors import LLMError

Capability = Literal["early_stop", "scoring", "token_scoring", "chat", "sampling", "attention", "concurrent_calls"]
EARLY_STOP: Final = "early_stop"
SCORING: Final = "scoring"
# The log-probability of each token of a given continuation (FLARE's look-ahead check).
TOKEN_SCORING: Final = "token_scoring"
CHAT: Final = "chat"
# Several independent samples of one prompt (ALCE's RERANK): each call names which sample it is.
SAMPLING: Final = "sampling"
# The generated tokens' entropies and the last layer's attention weights (DRAGIN).
ATTENTION: Final = "attention"
# Serves several calls at once (a server); a model without it is sent one question at a time.
CONCURRENT_CALLS: Final = "concurrent_calls"
Role = Literal["system", "user", "assistant"]

# A predicate on the text generated so far; see hopkit.llm.early_stop.
Done = Callable[[str], bool]


def valid_logprob(value: float) -> float:
    """A backend's token log-probability as one: a value above 0 (a probability above 1) is 0, a NaN is -inf
    (no probability), so that ``exp`` of it never overflows (a server's JSON may hold either)."""
    value = float(value)
    if math.isnan(value):
        return -math.inf
    return min(value, 0.0)


@dataclass(frozen=True)
class Completion:
    """One model call's output and what it cost.

    ``cached_prompt_tokens`` counts prompt tokens served from a reused KV cache
    (llama.cpp prefix reuse) or from a server's prompt cache; ``from_cache`` says the
    whole completion came from the on-disk response cache. ``finish_reason`` is why the
    model stopped, when the backend says (``"stop"``, ``"length"`` when ``max_tokens``
    cut it short); ``None`` when unknown.

    Model text enters hopkit here, whatever the backend: a NUL or a lone surrogate in ``text``
    (a server's JSON may carry ``"\\ud800"``) becomes U+FFFD (:func:`hopkit.clean_text.clean_text`),
    so the text can go into the next prompt, a trace and the store alike.
    """

    text: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    cached_prompt_tokens: int = 0
    from_cache: bool = False
    finish_reason: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", clean_text(self.text))


@dataclass(frozen=True)
class ChatMessage:
    """One turn of a chat: who speaks (``system``, ``user``, ``assistant``) and what they say."""

    role: Role
    content: str

    def as_dict(self) -> dict[str, str]:
        """The OpenAI-style ``{"role": ..., "content": ...}`` mapping chat templates and servers take."""
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True)
class Scores:
    """Natural-log probabilities of candidate continuations of one prompt, and what they cost.

    ``logprobs[i]`` is log P(``candidates[i]`` | prompt), summed over the candidate's
    tokens. Iterating, indexing and ``len`` go over ``logprobs`` (``list(scores)`` is the
    plain list of floats). ``floored[i]`` is true when the backend did not see the
    candidate among the tokens it was given (a server's top-k) and ``logprobs[i]`` is
    only an upper bound (see the backend); empty when no value is floored.
    ``from_cache`` says the scores came from the on-disk response cache.

    Raises:
        LLMError: ``candidates``, ``logprobs`` and a non-empty ``floored`` differ in length.
    """

    candidates: tuple[str, ...]
    logprobs: tuple[float, ...]
    prompt_tokens: int
    seconds: float
    cached_prompt_tokens: int = 0
    from_cache: bool = False
    floored: tuple[bool, ...] = ()

    def __post_init__(self) -> None:
        if len(self.candidates) != len(self.logprobs) or (self.floored and len(self.floored) != len(self.logprobs)):
            raise LLMError(f"Scores needs one log-probability (and floored flag) per candidate; got "
                           f"{len(self.candidates)} candidates, {len(self.logprobs)} logprobs, "
                           f"{len(self.floored)} floored flags")

    def __iter__(self) -> Iterator[float]:
        return iter(self.logprobs)

    def __len__(self) -> int:
        return len(self.logprobs)

    def __getitem__(self, index: int) -> float:
        return self.logprobs[index]

    def logprob(self, candidate: str) -> float:
        """The log-probability of ``candidate`` (its first occurrence among the candidates).

        Raises:
            LLMError: ``candidate`` was not scored.
        """
        if candidate not in self.candidates:
            raise LLMError(f"{candidate!r} was not scored; the candidates were {list(self.candidates)!r}")
        return self.logprobs[self.candidates.index(candidate)]

    @property
    def best(self) -> str:
        """The most probable candidate (the first of equals)."""
        return self.candidates[max(range(len(self.logprobs)), key=self.logprobs.__getitem__)]

    def normalized(self) -> tuple[float, ...]:
        """Probabilities renormalised over the candidates (they sum to 1), e.g. P(yes | yes or no)."""
        top = max(self.logprobs)
        weights = [math.exp(value - top) for value in self.logprobs]
        total = sum(weights)
        return tuple(weight / total for weight in weights)


@dataclass(frozen=True)
class TokenScores:
    """The tokens of one continuation of a prompt, each with its natural-log probability given the prompt
    and the tokens before it, and what the scoring cost.

    ``tokens[i]`` is the text of the continuation's i-th token as the model's tokenizer cut it (a
    character split across two tokens shows as a replacement character in each); the tokens
    joined are the continuation.

    Raises:
        LLMError: ``tokens`` and ``logprobs`` differ in length.
    """

    tokens: tuple[str, ...]
    logprobs: tuple[float, ...]
    prompt_tokens: int
    seconds: float
    cached_prompt_tokens: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "tokens", tuple(clean_text(token) for token in self.tokens))
        object.__setattr__(self, "logprobs", tuple(valid_logprob(value) for value in self.logprobs))
        if len(self.tokens) != len(self.logprobs):
            raise LLMError(f"TokenScores needs one log-probability per token; got {len(self.tokens)} tokens and "
                           f"{len(self.logprobs)} log-probabilities")

    @property
    def probabilities(self) -> tuple[float, ...]:
        """Each token's probability."""
        return tuple(math.exp(value) for value in self.logprobs)

    @property
    def total(self) -> float:
        """log P(continuation | prompt): the sum over its tokens."""
        return sum(self.logprobs)


@dataclass(frozen=True, eq=False)
class Attention:
    """A model's last-layer attention over the tokens of one text.

    ``weights[h, i, j]`` is how much token ``i`` attends to token ``j`` in head ``h`` (0 for ``j > i``:
    the model is causal); each row sums to 1. ``tokens[i]`` is the i-th token's text (a word's first
    token carries the whitespace before it), so the tokens joined are the text as the model read it.
    ``special`` holds the positions of the tokenizer's special tokens (a Llama-2 tokenizer's ``<s>``), which
    are no words of the text.

    Raises:
        LLMError: ``weights`` is not a (heads, n, n) array for n tokens, or a special position is not a token's.
    """

    tokens: tuple[str, ...]
    weights: np.ndarray
    special: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "tokens", tuple(clean_text(token) for token in self.tokens))
        weights = np.asarray(self.weights, dtype=np.float32)
        n = len(self.tokens)
        if weights.ndim != 3 or weights.shape[1:] != (n, n):
            raise LLMError(f"Attention needs (heads, {n}, {n}) weights for {n} tokens; got shape {weights.shape}")
        if any(not 0 <= position < n for position in self.special):
            raise LLMError(f"Attention's special positions {self.special} are not all among its {n} tokens")
        object.__setattr__(self, "weights", weights)


@dataclass(frozen=True, eq=False)
class AttendedCompletion:
    """A completion with what DRAGIN reads off its generation.

    ``tokens`` are the generated tokens' texts (joined, the completion's text before a stop
    sequence cut it); ``entropies[i]`` is the entropy, in nats, of the distribution token ``i`` was
    chosen from; ``attention`` is the last layer's attention of the model reading the generated
    tokens alone (as the DRAGIN authors compute it).

    Raises:
        LLMError: the three disagree on the number of tokens.
    """

    completion: Completion
    tokens: tuple[str, ...]
    entropies: tuple[float, ...]
    attention: Attention

    def __post_init__(self) -> None:
        object.__setattr__(self, "tokens", tuple(clean_text(token) for token in self.tokens))
        if not len(self.tokens) == len(self.entropies) == len(self.attention.tokens):
            raise LLMError(f"AttendedCompletion needs one entropy and one attention row per token; got "
                           f"{len(self.tokens)} tokens, {len(self.entropies)} entropies and "
                           f"{len(self.attention.tokens)} attention rows")


@runtime_checkable
class LLM(Protocol):
    """A text-completion language model.

    ``model_id`` names the model for cache keys and run hashes; ``context_length`` is
    its context window in tokens. Optional capabilities: see the module docstring.
    """

    model_id: str
    context_length: int

    def complete(
        self,
        prompt: str,
        *,
        stop: Sequence[str] = (),
        max_tokens: int = 256,
        temperature: float = 0.0,
    ) -> Completion:
        """Continue ``prompt``; stop before any of ``stop``."""
        ...

    def count_tokens(self, text: str) -> int:
        """How many tokens ``text`` takes in this model's tokenizer (an estimate for servers)."""
        ...


@runtime_checkable
class DeclaresCapabilities(Protocol):
    """Anything naming its optional capabilities."""

    capabilities: frozenset[str]


@runtime_checkable
class StreamingLLM(LLM, Protocol):
    """An LLM with the ``"early_stop"`` capability: it streams and can end a generation early."""

    capabilities: frozenset[str]

    def complete_until(self, prompt: str, done: Done, *, stop: Sequence[str] = (), max_tokens: int = 256,
                       temperature: float = 0.0) -> Completion:
        """``complete``, ended as soon as ``done(text so far)`` holds (see :mod:`hopkit.llm.early_stop`)."""
        ...


@runtime_checkable
class ScoringLLM(LLM, Protocol):
    """An LLM with the ``"scoring"`` capability: log-probabilities of given continuations."""

    capabilities: frozenset[str]

    def score_continuations(self, prompt: str, candidates: Sequence[str]) -> Scores:
        """The natural-log probability of each candidate as the continuation of ``prompt``.

        A candidate is the exact text that would follow the prompt, leading space
        included (``" yes"`` after ``"... Answer:"``). Multi-token candidates sum their
        tokens' log-probabilities where the backend can; where it cannot it raises.

        Raises:
            LLMError: no candidates, or one the backend cannot score (the message names
                the backend and the limitation).
        """
        ...


@runtime_checkable
class TokenScoringLLM(LLM, Protocol):
    """An LLM with the ``"token_scoring"`` capability: the log-probability of each token of a continuation."""

    capabilities: frozenset[str]

    def score_tokens(self, prompt: str, continuation: str) -> TokenScores:
        """Each token of ``continuation`` (the exact text after ``prompt``, leading space included) with its
        log-probability.

        Raises:
            LLMError: an empty continuation, or one that does not fit the context.
        """
        ...


@runtime_checkable
class ChatLLM(LLM, Protocol):
    """An LLM with the ``"chat"`` capability: it answers chat turns through its chat template."""

    capabilities: frozenset[str]

    def complete_chat(self, messages: Sequence[ChatMessage], *, stop: Sequence[str] = (), max_tokens: int = 256,
                      temperature: float = 0.0) -> Completion:
        """The assistant's next turn after ``messages``; stops before any of ``stop``.

        When the last message is the assistant's, its text is the start of the turn and the model
        continues it (a search agent's reasoning with the retrieved documents written into it).
        """
        ...


@runtime_checkable
class SamplingLLM(LLM, Protocol):
    """An LLM with the ``"sampling"`` capability: independent samples of one prompt, each repeatable."""

    capabilities: frozenset[str]

    def complete_sample(self, prompt: str, sample: int, *, stop: Sequence[str] = (), max_tokens: int = 256,
                        temperature: float = 1.0) -> Completion:
        """``complete`` at ``temperature``, drawn with the ``sample``-th seed: samples 0, 1, 2, ... of one
        prompt are independent draws, and asking for the same sample again gives the same text.

        Raises:
            LLMError: a negative ``sample``, or :meth:`LLM.complete`'s errors.
        """
        ...


@runtime_checkable
class AttendingLLM(LLM, Protocol):
    """An LLM with the ``"attention"`` capability: entropies and last-layer attention weights."""

    capabilities: frozenset[str]

    def complete_attended(self, prompt: str, *, stop: Sequence[str] = (), max_tokens: int = 256) -> AttendedCompletion:
        """A greedy completion of ``prompt`` (cut before the first of ``stop``), with its tokens' entropies and
        the attention among them."""
        ...

    def attend(self, text: str) -> Attention:
        """The last layer's attention of the model reading ``text`` alone.

        Raises:
            LLMError: an empty text, or one that does not fit the context.
        """
        ...

    def token_texts(self, text: str, *, special_tokens: bool = False) -> tuple[str, ...]:
        """The tokens the model's tokenizer makes of ``text`` (with the special tokens it adds when
        ``special_tokens``), each as :class:`Attention` gives them: a word's first token carries the space
        before it. No model call."""
        ...
