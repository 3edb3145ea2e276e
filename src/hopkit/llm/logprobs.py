"""Candidate log-probabilities from what backends return (shared by the scoring backends).

Servers (OpenAI-compatible APIs, LangChain providers) return, for the first generated
position, the log-probabilities of their top-k tokens as text. A candidate is scored
when its text is one of those tokens. A candidate absent from the top-k gets a floor:
an upper bound on its true log-probability, the smaller of the lowest returned
log-probability and the log of the probability mass the top-k leave over; its
``floored`` flag says so. A candidate with whitespace after its first word cannot be
one token, so it is refused: these backends see one position only.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from hopkit.errors import LLMError


def log_softmax(logits: npt.NDArray[Any]) -> npt.NDArray[np.float64]:
    """Natural-log probabilities from one position's logits (computed in float64)."""
    values = np.asarray(logits, dtype=np.float64)
    shifted = values - values.max()
    result: npt.NDArray[np.float64] = shifted - np.log(np.exp(shifted).sum())
    return result


def check_candidates(candidates: Sequence[str], *, backend: str) -> tuple[str, ...]:
    """The candidates as a tuple, refused if there are none or one is empty.

    Raises:
        LLMError: no candidates, or an empty one (it names ``backend``).
    """
    if isinstance(candidates, str):
        raise LLMError(f"{backend}: candidates must be a sequence of strings, got the single string {candidates!r}")
    chosen = tuple(candidates)
    if not chosen or any(not isinstance(c, str) or not c for c in chosen):
        raise LLMError(f"{backend}: need at least one candidate and no empty ones, got {list(chosen)!r}")
    return chosen


def check_single_position(candidates: Sequence[str], *, backend: str) -> None:
    """Refuse candidates that cannot be a single token (whitespace after their first word).

    Raises:
        LLMError: such a candidate (the message names ``backend`` and the limitation).
    """
    for candidate in candidates:
        if any(character.isspace() for character in candidate.lstrip()):
            raise LLMError(f"{backend} scores only the first generated token (the server returns its top-k "
                           f"alternatives for one position), but the candidate {candidate!r} spans several "
                           "tokens; score single-token candidates such as ' yes' / ' no', or use the llama.cpp "
                           "backend, which sums the log-probabilities of multi-token candidates")


def top_of_first_position(logprobs: Any, *, where: str) -> dict[str, float]:
    """The top-k ``{token text: log-probability}`` of the first generated position.

    Accepts the chat format (``{"content": [{"token", "logprob", "top_logprobs": [{"token",
    "logprob"}, ...]}, ...]}``, also sent by llama.cpp's server for completions) and the
    legacy completions format (``{"tokens": [...], "token_logprobs": [...],
    "top_logprobs": [{token: logprob, ...}, ...]}``). Tokens whose texts coincide (different
    ids, same text) are merged by adding their probabilities.

    Raises:
        LLMError: no log-probabilities, or a shape neither format has (``where`` names the source).
    """
    pairs: list[tuple[str, float]] = []
    try:
        if isinstance(logprobs, Mapping) and isinstance(logprobs.get("content"), list) and logprobs["content"]:
            first = logprobs["content"][0]
            pairs.append((first["token"], first["logprob"]))
            pairs.extend((item["token"], item["logprob"]) for item in first.get("top_logprobs") or [])
        elif isinstance(logprobs, Mapping) and isinstance(logprobs.get("top_logprobs"), list) \
                and logprobs["top_logprobs"]:
            tokens, values = logprobs.get("tokens") or [], logprobs.get("token_logprobs") or []
            if tokens and values and values[0] is not None:
                pairs.append((tokens[0], values[0]))
            pairs.extend((logprobs["top_logprobs"][0] or {}).items())
    except (KeyError, TypeError, AttributeError) as exc:
        raise LLMError(f"{where} returned log-probabilities in an unknown shape: {str(logprobs)[:300]}") from exc
    if not pairs:
        raise LLMError(f"{where} returned no log-probabilities ({str(logprobs)[:200]}): the server or provider "
                       "does not support them for this model, or ignored the request for them")
    merged: dict[str, float] = {}
    seen: set[tuple[str, float]] = set()
    for token, value in pairs:
        if not isinstance(token, str) or not isinstance(value, (int, float)) or isinstance(value, bool):
            raise LLMError(f"{where} returned a log-probability entry that is not (text, number): "
                           f"{token!r}: {value!r}")
        if (token, float(value)) in seen:
            continue  # the chosen token, listed again among the top-k
        seen.add((token, float(value)))
        merged[token] = float(value) if token not in merged else _log_add(merged[token], float(value))
    return merged


def first_token_scores(top: Mapping[str, float], candidates: Sequence[str]) -> tuple[tuple[float, ...],
                                                                                      tuple[bool, ...]]:
    """Each candidate's log-probability from the top-k of one position, floored when absent.

    Returns:
        The log-probabilities and, per candidate, whether its value is the floor (an empty
        tuple when none is).
    """
    floor = min(top.values())
    left_over = 1.0 - sum(math.exp(value) for value in top.values())
    if left_over > 1e-12:  # below: rounding noise of a top-k that holds all the mass
        floor = min(floor, math.log(left_over))
    values = tuple(top.get(candidate, floor) for candidate in candidates)
    floored = tuple(candidate not in top for candidate in candidates)
    return values, floored if any(floored) else ()


def _log_add(a: float, b: float) -> float:
    top = max(a, b)
    return top + math.log(math.exp(a - top) + math.exp(b - top))
