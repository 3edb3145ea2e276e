"""Low-level operations on a llama-cpp-python ``Llama``: evaluating a prompt past the prefix its context
already holds, reading the last position's logits, and saving and restoring the whole context state.

:class:`~hopkit.llm.llama_cpp.LlamaCppLLM` calls these with its lock held.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np
import numpy.typing as npt

from hopkit.errors import LLMError
from hopkit.llm.kv_states import KVState
from hopkit.llm.logprobs import log_softmax


def evaluate(model: Any, tokens: list[int], held: int) -> int:
    """Evaluate ``tokens`` past the ``held`` ones the context already has (at least the last one, for
    fresh logits), like ``Llama.generate``; how many were reused."""
    kept = min(held, len(tokens) - 1)
    if kept > 0 and not model._ctx.kv_cache_seq_rm(-1, kept, -1):
        kept = 0  # a model whose cache cannot be cut (recurrent): evaluate the whole prompt
    if kept == 0:
        model.reset()
    model.n_tokens = kept
    model.eval(tokens[kept:])
    return kept


def last_logits(model: Any) -> npt.NDArray[np.float32]:
    """A copy of the logits of the last evaluated position."""
    import llama_cpp

    pointer = llama_cpp.llama_get_logits_ith(model.ctx, -1)
    if not pointer:
        raise RuntimeError("llama.cpp returned no logits for the last position")
    logits: npt.NDArray[np.float32] = np.ctypeslib.as_array(pointer, shape=(model.n_vocab(),)).copy()
    return logits


def continuation_logprobs(model: Any, first: npt.NDArray[np.float64], piece: list[int],
                          prompt_length: int) -> list[float]:
    """log P of each token of ``piece`` after the prompt: ``first`` gives the first token's; later tokens
    are evaluated one by one; the context is left at the prompt's end for the next piece."""
    values = [float(first[piece[0]])]
    for previous, token in zip(piece, piece[1:]):
        model.eval([previous])
        values.append(float(log_softmax(last_logits(model))[token]))
    model.n_tokens = prompt_length
    return values


def snapshot(model: Any) -> KVState:
    """The context's current state: the tokens it evaluated and its serialised KV cache."""
    import llama_cpp

    ctx = model.ctx
    size = llama_cpp.llama_state_get_size(ctx)
    data = bytearray(size)  # written in place: a state is about 28 KB per token for a 1.5B model
    written = llama_cpp.llama_state_get_data(ctx, (ctypes.c_uint8 * size).from_buffer(data), size)
    del data[written:]
    tokens = tuple(model.input_ids[: model.n_tokens].tolist())
    return KVState(tokens=tokens, data=data)


def restore(model: Any, state: KVState, *, model_id: str) -> None:
    """Make ``state`` the live context, so ``Llama.generate`` continues from its tokens."""
    import llama_cpp

    buffer = (ctypes.c_uint8 * len(state.data)).from_buffer(state.data)
    restored = llama_cpp.llama_state_set_data(model.ctx, buffer, len(state.data))
    del buffer  # releases the export of state.data
    if restored != len(state.data):
        model.reset()
        raise LLMError(f"{model_id}: llama.cpp could not restore a saved KV state")
    model.input_ids[: len(state.tokens)] = state.tokens
    model.n_tokens = len(state.tokens)
    model._requires_eval = True  # logits are stale: Llama.generate evaluates at least one token
