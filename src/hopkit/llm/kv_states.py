"""Saved llama.cpp KV states of recent prompts, so prompts that alternate keep their prefixes.

A llama.cpp context holds the KV cache of one token sequence. When a method alternates
between two prompt families (IRCoT's reasoning prompt and its reader's prompt, each
opening with its own demonstrations), every switch would evaluate the demonstrations
again. This keeps the state of the latest prompt of each family, hands back the one
sharing the longest prefix with a new prompt, and says when saving or restoring one pays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence


def shared_prefix_length(previous: Sequence[int], tokens: Sequence[int]) -> int:
    """How many leading token ids two sequences have in common."""
    length = 0
    for a, b in zip(previous, tokens):
        if a != b:
            break
        length += 1
    return length


# Restoring a saved state costs about as much as evaluating this many prompt tokens.
RESTORE_MARGIN_TOKENS = 32
# A call that drops at least this many tokens of the live context saves it first.
SAVE_WHEN_DROPPING_TOKENS = 512


def abandons(live_tokens: int, kept_tokens: int) -> bool:
    """Whether a prompt that keeps ``kept_tokens`` of the live context's ``live_tokens`` drops
    enough of it that the live context is worth saving first.

    Consecutive steps of one prompt drop only its question and reasoning tail (a step adds
    paragraphs before the question), which no later prompt needs, so nothing is saved
    between them. Switching to a prompt with other demonstrations, or with fewer of them,
    drops more, and a later prompt may start from what it drops: evaluating that again
    costs seconds, saving it tens of milliseconds.
    """
    return live_tokens - kept_tokens >= SAVE_WHEN_DROPPING_TOKENS


@dataclass(frozen=True)
class KVState:
    """The token ids a context had evaluated and its serialised state (KV cache included).

    ``data`` is a bytearray so llama.cpp can write and read it in place, without copies.
    """

    tokens: tuple[int, ...]
    data: bytes | bytearray


class KVStateCache:
    """At most ``capacity`` states; when one more comes, a redundant one goes, else the stalest.

    Two states are redundant when they share at least half of the shorter one's tokens:
    consecutive steps of one question's prompt are near-copies of each other, while the
    latest reasoning prompt and the latest reader prompt are what the next question
    needs, and they share little. Of the most redundant pair the less recently used is
    dropped; when no pair is redundant the least recently used state goes, so states
    of prompts that never come back (a finished run's) age out instead of holding slots.
    """

    def __init__(self, capacity: int) -> None:
        if capacity < 0:
            raise ValueError(f"KVStateCache needs capacity >= 0, got {capacity}")
        self.capacity = capacity
        self._states: list[KVState] = []  # least recently used first

    def __len__(self) -> int:
        return len(self._states)

    def best(self, tokens: Sequence[int]) -> tuple[int, KVState | None]:
        """The state sharing the longest prefix with ``tokens`` (now the most recently used), and that length."""
        best_length, best_state = 0, None
        for state in self._states:
            length = shared_prefix_length(state.tokens, tokens)
            if length > best_length:
                best_length, best_state = length, state
        if best_state is not None:
            self._states.remove(best_state)
            self._states.append(best_state)
        return best_length, best_state

    def remember(self, state: KVState) -> None:
        """Keep ``state`` as the most recently used; drop the most redundant state if over capacity."""
        self._states = [old for old in self._states if old.tokens != state.tokens]
        self._states.append(state)
        while len(self._states) > self.capacity:
            self._states.pop(self._most_redundant())

    def _most_redundant(self) -> int:
        """Index of the older state of the redundant pair sharing the longest prefix; with no
        redundant pair, of the least recently used state."""
        best_index, best_length = 0, 0
        for i, older in enumerate(self._states):
            for newer in self._states[i + 1:]:
                length = shared_prefix_length(older.tokens, newer.tokens)
                if 2 * length >= min(len(older.tokens), len(newer.tokens)) and length > best_length:
                    best_index, best_length = i, length
        return best_index
