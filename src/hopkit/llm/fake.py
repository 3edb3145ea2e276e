"""A scripted language model for unit tests: answers from a list or a function."""

from __future__ import annotations

import re
from typing import Callable, Mapping, Sequence

from hopkit.errors import LLMError
from hopkit.llm.logprobs import check_candidates
import numpy as np

from hopkit.llm.protocol import (ATTENTION, CHAT, EARLY_STOP, SAMPLING, SCORING, TOKEN_SCORING, AttendedCompletion,
                                 Attention, ChatMessage, Completion, Done, Scores, TokenScores)
from hopkit.llm.capabilities import missing_capability

ScoreScript = Mapping[str, float] | Callable[[str], Mapping[str, float]]
# (prompt, continuation) -> the continuation's tokens, each with its log-probability; or one
# log-probability for every word of any continuation (what a YAML config can say)
TokenScript = Callable[[str, str], Sequence[tuple[str, float]]] | float
# a generated word -> its entropy; or one entropy for every word
EntropyScript = Callable[[str], float] | float

# What the scripted model "streams": each piece is a word with the whitespace before it.
_PIECES = re.compile(r"\s*\S+|\s+$")


class ScriptedLLM:
    """Returns scripted completions and scores, and records every prompt it was given.

    Args:
        script: either the completions to return in order, or a function from the
            prompt to the completion.
        context_length: the context window it claims (tokens are whitespace words).
        scores: scripted log-probabilities of candidate continuations: a mapping from
            candidate to log-probability, or a function from the prompt to one. Given,
            the model has the ``"scoring"`` capability.
        streaming: offer ``complete_until`` (the ``"early_stop"`` capability), streaming
            the scripted text word by word.
        token_scores: scripted tokens of a continuation with their log-probabilities, a function
            of the prompt and the continuation, or one log-probability for every word (each word
            a token); given, the model has ``"token_scoring"``.
        chat: offer ``complete_chat`` (the ``"chat"`` capability): the turns are laid out as
            ``<|role|>\ncontent`` blocks ending in ``<|assistant|>\n`` (see :func:`chat_prompt`),
            recorded in ``prompts`` and answered like a prompt.
        sampling: offer ``complete_sample`` (the ``"sampling"`` capability): each sample is the next
            scripted completion (or the script's answer to the prompt); ``samples`` records which
            sample each call asked for.
        entropies: offer ``complete_attended`` and ``attend`` (the ``"attention"`` capability): each
            word is a token with this entropy (or the function's of the word), and each token attends
            equally to itself and every token before it, in one head.

    The text is cut at the first stop sequence and after ``max_tokens`` words (then its
    ``finish_reason`` is ``"length"``), as a real backend would. Scored prompts
    are recorded in ``scored`` (with their candidates), not in ``prompts``.
    """

    model_id = "scripted"

    def __init__(self, script: Sequence[str] | Callable[[str], str], *, context_length: int = 8192,
                 scores: ScoreScript | None = None, streaming: bool = False, chat: bool = False,
                 token_scores: TokenScript | None = None, sampling: bool = False,
                 entropies: EntropyScript | None = None) -> None:
        self.script = script
        self.context_length = context_length
        self.scores = scores
        self.token_scores = token_scores
        self.entropies = entropies
        self.attended: list[str] = []
        self.prompts: list[str] = []
        self.scored: list[tuple[str, tuple[str, ...]]] = []
        self.samples: list[int] = []
        self.capabilities: frozenset[str] = frozenset(
            ([SCORING] if scores is not None else []) + ([EARLY_STOP] if streaming else []) + ([CHAT] if chat else [])
            + ([TOKEN_SCORING] if token_scores is not None else []) + ([SAMPLING] if sampling else [])
            + ([ATTENTION] if entropies is not None else []))

    def complete(self, prompt: str, *, stop: Sequence[str] = (), max_tokens: int = 256,
                 temperature: float = 0.0) -> Completion:
        pieces = _PIECES.findall(self._text(prompt, stop))
        text = "".join(pieces[:max_tokens])
        return Completion(text=text, prompt_tokens=self.count_tokens(prompt),
                          completion_tokens=self.count_tokens(text), seconds=0.0,
                          finish_reason="length" if len(pieces) > max_tokens else "stop")

    def complete_sample(self, prompt: str, sample: int, *, stop: Sequence[str] = (), max_tokens: int = 256,
                        temperature: float = 1.0) -> Completion:
        """The next scripted completion, as sample ``sample`` (needs ``sampling=True``)."""
        if SAMPLING not in self.capabilities:
            raise missing_capability(self, SAMPLING)
        if sample < 0:
            raise LLMError(f"ScriptedLLM: sample must be >= 0, got {sample}")
        self.samples.append(sample)
        return self.complete(prompt, stop=stop, max_tokens=max_tokens, temperature=temperature)

    def complete_chat(self, messages: Sequence[ChatMessage], *, stop: Sequence[str] = (), max_tokens: int = 256,
                      temperature: float = 0.0) -> Completion:
        """The scripted answer to :func:`chat_prompt` of the turns (needs ``chat=True``)."""
        if CHAT not in self.capabilities:
            raise missing_capability(self, CHAT)
        return self.complete(chat_prompt(messages), stop=stop, max_tokens=max_tokens, temperature=temperature)

    def complete_until(self, prompt: str, done: Done, *, stop: Sequence[str] = (), max_tokens: int = 256,
                       temperature: float = 0.0) -> Completion:
        """The scripted text, word by word, up to where ``done`` first holds (needs ``streaming=True``)."""
        if EARLY_STOP not in self.capabilities:
            raise missing_capability(self, EARLY_STOP)
        whole = self._text(prompt, stop)
        text = ""
        for piece in _PIECES.findall(whole):
            text += piece
            if done(text):
                break
        return Completion(text=text, prompt_tokens=self.count_tokens(prompt),
                          completion_tokens=self.count_tokens(text), seconds=0.0)

    def score_continuations(self, prompt: str, candidates: Sequence[str]) -> Scores:
        """The scripted log-probability of each candidate (needs ``scores=``).

        Raises:
            LLMError: no scripted scores, or none for one of the candidates.
        """
        if self.scores is None:
            raise missing_capability(self, SCORING)
        chosen = check_candidates(candidates, backend="ScriptedLLM")
        table = self.scores(prompt) if callable(self.scores) else self.scores
        unknown = [candidate for candidate in chosen if candidate not in table]
        if unknown:
            raise LLMError(f"ScriptedLLM has no scripted score for {unknown!r}; scripted: {sorted(table)!r}")
        self.scored.append((prompt, chosen))
        return Scores(candidates=chosen, logprobs=tuple(float(table[c]) for c in chosen),
                      prompt_tokens=self.count_tokens(prompt), seconds=0.0)

    def score_tokens(self, prompt: str, continuation: str) -> TokenScores:
        """The scripted tokens of ``continuation`` with their log-probabilities (needs ``token_scores=``).

        Raises:
            LLMError: no scripted token scores, or tokens that do not join to the continuation.
        """
        if self.token_scores is None:
            raise missing_capability(self, TOKEN_SCORING)
        if callable(self.token_scores):
            pairs = list(self.token_scores(prompt, continuation))
        else:
            pairs = [(piece, float(self.token_scores)) for piece in _PIECES.findall(continuation)]
        if "".join(token for token, _ in pairs) != continuation:
            raise LLMError(f"ScriptedLLM: the scripted tokens {pairs!r} do not join to {continuation!r}")
        self.scored.append((prompt, (continuation,)))
        return TokenScores(tokens=tuple(t for t, _ in pairs), logprobs=tuple(float(v) for _, v in pairs),
                           prompt_tokens=self.count_tokens(prompt), seconds=0.0)

    def complete_attended(self, prompt: str, *, stop: Sequence[str] = (), max_tokens: int = 256) -> AttendedCompletion:
        """:meth:`complete`, each word a token with its scripted entropy (needs ``entropies=``)."""
        if self.entropies is None:
            raise missing_capability(self, ATTENTION)
        completion = self.complete(prompt, stop=stop, max_tokens=max_tokens)
        tokens = tuple(_PIECES.findall(completion.text))
        entropy = self.entropies
        values = tuple(float(entropy(t.strip())) if callable(entropy) else float(entropy) for t in tokens)
        return AttendedCompletion(completion=completion, tokens=tokens, entropies=values,
                                  attention=uniform_attention(tokens))

    def attend(self, text: str) -> Attention:
        """Uniform causal attention over the words of ``text`` (needs ``entropies=``); recorded in ``attended``."""
        if self.entropies is None:
            raise missing_capability(self, ATTENTION)
        if not text.strip():
            raise LLMError("ScriptedLLM: attend needs a non-empty text")
        self.attended.append(text)
        return uniform_attention(tuple(_PIECES.findall(text)))

    def token_texts(self, text: str, *, special_tokens: bool = False) -> tuple[str, ...]:
        """Each word of ``text`` a token, with the space before it (no special tokens)."""
        if self.entropies is None:
            raise missing_capability(self, ATTENTION)
        return tuple(_PIECES.findall(text))

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def _text(self, prompt: str, stop: Sequence[str]) -> str:
        if callable(self.script):
            text = self.script(prompt)
        else:
            if len(self.prompts) >= len(self.script):
                raise LLMError(f"ScriptedLLM ran out of its {len(self.script)} scripted completions")
            text = self.script[len(self.prompts)]
        self.prompts.append(prompt)
        for sequence in stop:
            if sequence and sequence in text:
                text = text[: text.index(sequence)]
        return text


def uniform_attention(tokens: Sequence[str]) -> Attention:
    """One head in which each token attends equally to itself and every token before it."""
    n = len(tokens)
    weights = np.tril(np.ones((n, n), dtype=np.float32))
    weights /= np.maximum(weights.sum(axis=1, keepdims=True), 1.0)
    return Attention(tokens=tuple(tokens), weights=weights[None, :, :])


def chat_prompt(messages: Sequence[ChatMessage]) -> str:
    """How :class:`ScriptedLLM` lays out chat turns: ``<|role|>\ncontent\n`` each, then ``<|assistant|>\n``
    (a last assistant message is the turn's start: ``<|assistant|>\n`` and its text, to continue)."""
    if not messages:
        raise LLMError("a chat needs at least one message")
    if messages[-1].role == "assistant":
        return chat_prompt(messages[:-1]) + messages[-1].content if len(messages) > 1 else (
            "<|assistant|>\n" + messages[-1].content)
    return "".join(f"<|{m.role}|>\n{m.content}\n" for m in messages) + "<|assistant|>\n"
