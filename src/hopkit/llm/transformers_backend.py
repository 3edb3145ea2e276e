"""Models run in-process by Hugging Face ``transformers`` (CPU, or a GPU where there is one), for what
llama.cpp does not expose: the attention weights (DRAGIN's RIND and QFS).

It loads the GGUF files the llama.cpp backend uses (``transformers`` de-quantizes Qwen2 and Llama
GGUFs to full precision; that needs the ``gguf`` and ``accelerate`` packages: ``pip install
'hopkit[transformers]'``), a model folder, or an ``hf://`` GGUF name. Decoding is greedy unless a
temperature is given. Attention comes from the eager attention code, the only one that returns
weights, so the model is always loaded with it.
"""

from __future__ import annotations

import copy
import logging
import math
import threading
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from hopkit.errors import ContextFullError, LLMError
from hopkit.llm.hub import download_hub_file, is_hub_uri, parse_hub_uri
from hopkit.llm.llama_cpp import default_model_path
from hopkit.llm.protocol import (ATTENTION, TOKEN_SCORING, AttendedCompletion, Attention, Completion, TokenScores)
from hopkit.llm.text import cut_at_stop
from hopkit.llm.token_pieces import piece_texts, special_positions
from hopkit.options import NonNegativeInt, PositiveInt

logger = logging.getLogger(__name__)

INSTALL_HINT = "pip install 'hopkit[transformers]' (transformers, torch, gguf and accelerate)"


def _import_torch() -> tuple[Any, Any]:
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise LLMError(f"the transformers backend needs transformers and torch: {INSTALL_HINT} ({exc})") from None
    return torch, transformers


#: what a model id loaded by this backend ends with: the file's stem, then this (the same file through
#: llama.cpp has the stem alone)
MODEL_ID_SUFFIX = "@transformers"


class TransformersLLM:
    """A causal language model run by ``transformers``, with the ``"attention"`` and ``"token_scoring"``
    capabilities.

    Build it with :meth:`load`. Calls are serialised by a lock (one model, one call at a time).

    Args:
        model: a loaded ``transformers`` causal LM (eager attention).
        tokenizer: its tokenizer.
        model_id: the name used in cache keys and run hashes.
        context_length: the longest prompt plus completion it is given, in tokens.
        reuse_prefix: keep the key/value cache of the last generation, so that a prompt that starts
            with the same tokens (the same demonstrations) evaluates only what follows them.
    """

    capabilities: frozenset[str] = frozenset({ATTENTION, TOKEN_SCORING})

    def __init__(self, model: Any, tokenizer: Any, *, model_id: str, context_length: int,
                 reuse_prefix: bool = True) -> None:
        if not model_id:
            raise LLMError("TransformersLLM needs a non-empty model_id")
        self._torch, transformers = _import_torch()
        self._model = model
        self._tokenizer = tokenizer
        self.model_id = model_id
        self.context_length = context_length
        self._lock = threading.Lock()
        self._prefix = PrefixCache(enabled=reuse_prefix)
        # generate's name for a cache given in: transformers 5 renamed past_key_values
        self._cache_argument = "cache" if int(transformers.__version__.split(".")[0]) >= 5 else "past_key_values"

    @classmethod
    def load(cls, model_path: str | Path | None = None, *, n_ctx: NonNegativeInt = 8192, device: str = "auto",
             dtype: str = "auto", n_threads: PositiveInt | None = None, reuse_prefix: bool = True) -> TransformersLLM:
        """Load a GGUF file (by default the packaged SmolLM2-135M-Instruct), a model folder, or an ``hf://``
        GGUF file.

        Args:
            model_path: a ``.gguf`` file, a folder with a ``transformers`` model, an
                ``hf://OWNER/NAME/FILE.gguf`` name, or ``None`` for the packaged SmolLM2 GGUF.
            n_ctx: the context it may use (0: the model's own).
            device: ``"cpu"``, ``"cuda"``, ``"cuda:1"``..., or ``"auto"`` (a GPU when there is one).
            dtype: ``"float32"``, ``"bfloat16"``, ``"float16"``, or ``"auto"`` (float32 on a CPU,
                bfloat16 on a GPU).
            n_threads: CPU threads for torch (``None``: torch's own choice).
            reuse_prefix: reuse the key/value cache of a prompt prefix shared with the last generation.

        Raises:
            LLMError: the file is missing, the packages are not installed, or the model cannot be loaded.
        """
        torch, transformers = _import_torch()
        path = _local_path(model_path)
        if n_threads is not None:
            if n_threads < 1:
                raise LLMError(f"n_threads must be >= 1, got {n_threads}")
            torch.set_num_threads(n_threads)
        chosen_device = ("cuda" if torch.cuda.is_available() else "cpu") if device == "auto" else device
        chosen_dtype = _dtype(torch, dtype, chosen_device)
        folder, gguf = (path.parent, {"gguf_file": path.name}) if path.is_file() else (path, {})
        logger.info("loading %s with transformers on %s (%s)", path, chosen_device, chosen_dtype)
        try:
            tokenizer = transformers.AutoTokenizer.from_pretrained(folder, **gguf)
            model = transformers.AutoModelForCausalLM.from_pretrained(
                folder, **gguf, dtype=chosen_dtype, attn_implementation="eager")
        except ImportError as exc:
            raise LLMError(f"transformers could not read {path}: {exc}; {INSTALL_HINT}") from exc
        except (ValueError, OSError, RuntimeError, KeyError) as exc:
            raise LLMError(f"transformers could not load {path}: {exc}; it reads GGUF files of the Llama, "
                           f"Qwen2 and other architectures it supports, and model folders") from exc
        model.to(chosen_device).eval()
        trained = int(getattr(model.config, "max_position_embeddings", 0) or 0)
        context = n_ctx or trained or 4096
        if trained:
            context = min(context, trained)
        return cls(model, tokenizer, model_id=f"{path.stem}{MODEL_ID_SUFFIX}", context_length=context,
                   reuse_prefix=reuse_prefix)

    @property
    def device(self) -> Any:
        return self._model.device

    def count_tokens(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False))

    def complete(self, prompt: str, *, stop: Sequence[str] = (), max_tokens: int = 256,
                 temperature: float = 0.0) -> Completion:
        """Continue ``prompt`` (greedy at temperature 0), cut before the first of ``stop``.

        Raises:
            LLMError: bad arguments, or a prompt that does not fit the context.
        """
        with self._lock:
            started = time.perf_counter()
            ids = self._prompt_ids(prompt, max_tokens)
            generated, _, reused = self._generate(ids, stop, max_tokens, temperature, scores=False)
            return self._completion(ids, generated, stop, max_tokens, started, reused)

    def complete_attended(self, prompt: str, *, stop: Sequence[str] = (), max_tokens: int = 256) -> AttendedCompletion:
        """A greedy completion with each kept token's entropy (nats) and the last layer's attention of the
        model reading the kept tokens alone.

        Raises:
            LLMError: bad arguments, or a prompt that does not fit the context.
        """
        torch = self._torch
        with self._lock:
            started = time.perf_counter()
            ids = self._prompt_ids(prompt, max_tokens)
            generated, logits, reused = self._generate(ids, stop, max_tokens, 0.0, scores=True)
            completion = self._completion(ids, generated, stop, max_tokens, started, reused)
            kept = self._kept_tokens(generated, completion.text)
            tokens = piece_texts(self._tokenizer, kept)
            entropies = tuple(_entropy(torch, row) for row in logits[:len(kept)])
            attention = self._attention(kept) if kept else np.zeros((1, 0, 0), dtype=np.float32)
            return AttendedCompletion(completion=completion, tokens=tokens, entropies=entropies,
                                      attention=Attention(tokens=tokens, weights=attention))

    def attend(self, text: str) -> Attention:
        """The last layer's attention of the model reading ``text`` (with the tokenizer's special tokens,
        as the DRAGIN authors encode it).

        Raises:
            LLMError: an empty text, or one longer than the context.
        """
        if not text.strip():
            raise LLMError(f"{self.model_id}: attend needs a non-empty text")
        ids = self._tokenizer.encode(text)
        if len(ids) > self.context_length:
            raise ContextFullError(f"{self.model_id}: a text of {len(ids)} tokens does not fit the context of "
                                   f"{self.context_length}")
        with self._lock:
            return Attention(tokens=piece_texts(self._tokenizer, ids), weights=self._attention(ids),
                             special=special_positions(self._tokenizer, ids))

    def token_texts(self, text: str, *, special_tokens: bool = False) -> tuple[str, ...]:
        return piece_texts(self._tokenizer, self._tokenizer.encode(text, add_special_tokens=special_tokens))

    def score_tokens(self, prompt: str, continuation: str) -> TokenScores:
        """Each token of ``continuation`` after ``prompt``, with its log-probability.

        Raises:
            LLMError: an empty continuation, or prompt and continuation longer than the context.
        """
        if not continuation:
            raise LLMError(f"{self.model_id}: score_tokens needs a non-empty continuation")
        torch = self._torch
        prompt_ids = self._tokenizer.encode(prompt)
        continuation_ids = self._tokenizer.encode(continuation, add_special_tokens=False)
        if len(prompt_ids) + len(continuation_ids) > self.context_length:
            raise ContextFullError(f"{self.model_id}: prompt and continuation "
                                   f"({len(prompt_ids) + len(continuation_ids)} tokens) do not fit the context of "
                                   f"{self.context_length}")
        with self._lock, torch.no_grad():
            started = time.perf_counter()
            ids = torch.tensor([prompt_ids + continuation_ids], device=self.device)
            logits = self._model(ids).logits[0, len(prompt_ids) - 1:-1].float()
            logprobs = torch.log_softmax(logits, dim=-1).gather(1, ids[0, len(prompt_ids):, None])[:, 0]
            return TokenScores(tokens=piece_texts(self._tokenizer, continuation_ids),
                               logprobs=tuple(float(v) for v in logprobs.tolist()), prompt_tokens=len(prompt_ids),
                               seconds=time.perf_counter() - started)

    def _prompt_ids(self, prompt: str, max_tokens: int) -> list[int]:
        if max_tokens < 1:
            raise LLMError(f"{self.model_id}: max_tokens must be >= 1, got {max_tokens}")
        ids = self._tokenizer.encode(prompt)
        if len(ids) + max_tokens > self.context_length:
            raise ContextFullError(f"{self.model_id}: a prompt of {len(ids)} tokens plus {max_tokens} new ones does "
                                   f"not fit the context of {self.context_length}")
        return list(ids)

    def _generate(self, ids: list[int], stop: Sequence[str], max_tokens: int, temperature: float,
                  *, scores: bool) -> tuple[list[int], list[Any], int]:
        """The new token ids, ended at the end-of-text token, at ``max_tokens`` or once a stop sequence is
        written; with each step's logits when ``scores``; and how many prompt tokens the kept cache served."""
        torch = self._torch
        sampling = temperature > 0
        options: dict[str, Any] = dict(max_new_tokens=max_tokens, do_sample=sampling,
                                       return_dict_in_generate=True, output_scores=scores,
                                       pad_token_id=self._tokenizer.pad_token_id or self._tokenizer.eos_token_id)
        if sampling:
            options.update(temperature=temperature, top_k=40, top_p=0.95)
        else:
            options.update(temperature=None, top_p=None, top_k=None)
        stops = [s for s in stop if s]
        if stops:
            options.update(stop_strings=stops, tokenizer=self._tokenizer)
        cache, reused = self._prefix.cache_for(ids)
        with torch.no_grad():
            inputs = torch.tensor([ids], device=self.device)
            output = self._model.generate(inputs, attention_mask=torch.ones_like(inputs), use_cache=True,
                                          **{self._cache_argument: cache}, **options)
        self._prefix.keep(output.sequences[0].tolist(), _returned_cache(output))
        generated = output.sequences[0, len(ids):].tolist()
        end = self._tokenizer.eos_token_id
        if end in generated:
            generated = generated[:generated.index(end)]
        logits = [row[0].float() for row in output.scores] if scores else []
        return generated, logits, reused

    def _completion(self, ids: list[int], generated: list[int], stop: Sequence[str], max_tokens: int,
                    started: float, reused: int) -> Completion:
        """The completion, its text cut before a stop sequence."""
        whole = self._tokenizer.decode(generated, skip_special_tokens=True)
        text = cut_at_stop(whole, stop)
        finish = "stop" if text != whole or len(generated) < max_tokens else "length"
        return Completion(text=text, prompt_tokens=len(ids), completion_tokens=len(generated),
                          seconds=time.perf_counter() - started, cached_prompt_tokens=reused, finish_reason=finish)

    def _kept_tokens(self, generated: list[int], text: str) -> list[int]:
        """The generated tokens that make ``text`` (all of them unless a stop sequence cut it)."""
        if self._tokenizer.decode(generated, skip_special_tokens=True) == text:
            return generated
        kept: list[int] = []
        for token in generated:
            if len(self._tokenizer.decode(kept, skip_special_tokens=True)) >= len(text):
                break
            kept.append(token)
        return kept

    def _attention(self, ids: Sequence[int]) -> np.ndarray:
        torch = self._torch
        with torch.no_grad():
            output = self._model(torch.tensor([list(ids)], device=self.device), output_attentions=True)
        last = output.attentions[-1]
        if last is None:
            raise LLMError(f"{self.model_id}: the model returned no attention weights (its attention code "
                           "does not give them); load it with the eager attention")
        return last[0].float().cpu().numpy()

    def __repr__(self) -> str:
        return f"TransformersLLM({self.model_id!r})"


class PrefixCache:
    """The key/value cache of the last generation and the token ids it covers. A prompt that shares a
    prefix with them is given a copy of the cache cut to that prefix (at least :data:`MIN_REUSED` tokens,
    and never the whole prompt: its last token is always evaluated, for the first new token's logits)."""

    MIN_REUSED = 16

    def __init__(self, *, enabled: bool) -> None:
        self.enabled = enabled
        self._ids: list[int] = []
        self._cache: Any = None

    def cache_for(self, ids: Sequence[int]) -> tuple[Any, int]:
        """A cache covering the longest usable prefix of ``ids`` (None when none is), and its length."""
        if not self.enabled or self._cache is None:
            return None, 0
        shared = 0
        limit = min(len(ids) - 1, len(self._ids), int(self._cache.get_seq_length()))
        while shared < limit and ids[shared] == self._ids[shared]:
            shared += 1
        if shared < self.MIN_REUSED:
            return None, 0
        cache = copy.deepcopy(self._cache)
        surplus = int(cache.get_seq_length()) - shared
        if surplus > 0:
            cache.crop(-surplus)  # a negative count removes that many tokens (transformers 4 and 5 alike)
        return cache, shared

    def keep(self, ids: list[int], cache: Any) -> None:
        if self.enabled and cache is not None and hasattr(cache, "crop"):
            self._ids, self._cache = ids, cache


def _entropy(torch: Any, logits: Any) -> float:
    logprobs = torch.log_softmax(logits, dim=-1)
    value = float(-(logprobs.exp() * logprobs).nansum())
    return value if math.isfinite(value) else 0.0


def _returned_cache(output: Any) -> Any:
    """The key/value cache ``generate`` hands back, under its transformers 5 name or its older one (reading the
    old name on transformers 5 works, with a deprecation warning)."""
    return output.get("cache") if "cache" in output.keys() else output.get("past_key_values")


def _dtype(torch: Any, name: str, device: str) -> Any:
    if name == "auto":
        return torch.float32 if device == "cpu" else torch.bfloat16
    chosen = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}.get(name)
    if chosen is None:
        raise LLMError(f"dtype must be auto, float32, bfloat16 or float16; got {name!r}")
    return chosen


def _local_path(model_path: str | Path | None) -> Path:
    if is_hub_uri(model_path):
        return download_hub_file(parse_hub_uri(str(model_path)))
    path = Path(model_path).expanduser() if model_path is not None else default_model_path()
    if not path.exists():
        raise LLMError(f"model not found: {path}; give a .gguf file, a transformers model folder, or "
                       "hf://OWNER/NAME/FILE.gguf")
    return path
