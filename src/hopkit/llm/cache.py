"""An on-disk response cache (one SQLite file) in front of any LLM.

Safe for many threads and processes: every lookup and insert opens its own short
connection; the file is in WAL mode and writers wait for each other. Two callers
missing on the same key at once both call the model; the first answer stored wins.

A broken cache never fails a question. A file that is not (or no longer) a valid
SQLite database is moved aside as ``<name>.corrupt-<timestamp>`` and a new cache is
started; a file deleted during a run is created again; a cache that still cannot be
used (unwritable folder, disk full, locked too long) is bypassed for the rest of the
process: the model answers every request. Each of these is logged as a warning.

The cache has exactly the optional capabilities of the model it wraps. It keeps plain,
chat, sampled and early-stopped completions and the scores of candidates; every other
capability's call (``score_tokens``, the attention calls) passes straight through to the
model (:class:`~hopkit.llm.wrapper.LLMWrapper`): a per-token scoring is cheap beside the
generation it checks, and the cache keeps texts and one number per candidate, not tokens
or attention. Scores are kept in their own table, keyed on the model, the prompt and the
candidates in order.
Early-stopped completions (``complete_until``) are kept under their own keys and never
answer a plain ``complete``, whose caller may keep more than the early stop settled;
``complete_until`` is answered by a stored plain completion (the full text settles any
predicate), by a stored early-stopped one whose generation ran to its end, or by a
stored early-stopped one on which the caller's own predicate holds (so a predicate
that asks for more text than another's stored answer calls the model).
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Callable, Literal, Sequence

from hopkit.full_disk import is_disk_full
from hopkit.llm.logprobs import check_candidates
from hopkit.llm.protocol import (CHAT, EARLY_STOP, LLM, SAMPLING, SCORING, ChatLLM, ChatMessage, Completion, Done,
                                 SamplingLLM, Scores, ScoringLLM, StreamingLLM)
from hopkit.llm.wrapper import LLMWrapper

logger = logging.getLogger(__name__)

_SCHEMA = ("""
CREATE TABLE IF NOT EXISTS completions (
    key TEXT PRIMARY KEY,
    model_id TEXT NOT NULL,
    text TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    seconds REAL NOT NULL,
    created REAL NOT NULL
)
""", """
CREATE TABLE IF NOT EXISTS scores (
    key TEXT PRIMARY KEY,
    model_id TEXT NOT NULL,
    logprobs TEXT NOT NULL,
    floored TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    seconds REAL NOT NULL,
    created REAL NOT NULL
)
""")

# How an early-stopped completion ended: the predicate held ("stopped") or the generation ran out first.
EarlyStop = Literal["stopped", "finished"]

_ATTEMPTS = 5  # the statement, then after up to four new files (a deletion of three parts races with new ones)


def cache_key(model_id: str, prompt: str | Sequence[ChatMessage], stop: Sequence[str], max_tokens: int,
              temperature: float, early_stop: EarlyStop | None = None, sample: int | None = None) -> str:
    """The sha256 hex digest identifying one request.

    Args:
        model_id: the model's id.
        prompt: the prompt, or the turns of a chat request.
        stop: stop sequences, in order.
        max_tokens: the token limit.
        temperature: the temperature (as a float, so 0 and 0.0 are one key).
        early_stop: for a ``complete_until`` answer, how it ended (``None``: a plain completion).
        sample: for a ``complete_sample`` answer, which sample (``None``: a plain completion).

    Returns:
        64 hex characters.
    """
    shown: object = prompt if isinstance(prompt, str) else ["chat", [m.as_dict() for m in prompt]]
    fields: list[object] = [model_id, shown, list(stop), int(max_tokens), float(temperature)]
    if early_stop is not None:
        fields.append(f"early_stop:{early_stop}")
    if sample is not None:
        fields.append(f"sample:{int(sample)}")
    material = json.dumps(fields, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def scores_key(model_id: str, prompt: str, candidates: Sequence[str]) -> str:
    """The sha256 hex digest identifying one scoring request (candidates in order)."""
    material = json.dumps(["scores", model_id, prompt, list(candidates)], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


class CachedLLM(LLMWrapper):
    """Answers repeated requests from an SQLite file instead of the model.

    A hit returns the stored text and token counts with ``from_cache=True``,
    ``cached_prompt_tokens=0`` and ``seconds`` the lookup time. Requests with
    temperature > 0 are cached too (a rerun then sees the same sample). An empty (or
    blank) completion is not kept, so a question that failed for want of an answer
    asks the model again when it is retried.

    A cache file that cannot be used is rebuilt or bypassed with a warning (see the
    module docstring); ``bypassed`` then says why the cache is off.

    Args:
        inner: the LLM to cache.
        path: the SQLite file (created, with its folder, on first use).
    """

    def __init__(self, inner: LLM, path: str | Path) -> None:
        super().__init__(inner)
        self.path = Path(path).expanduser()
        self.bypassed: str | None = None
        self._ready = False
        self._ready_lock = threading.Lock()
        self._generation = 0  # bumped each time the file is started again

    def complete(self, prompt: str, *, stop: Sequence[str] = (), max_tokens: int = 256,
                 temperature: float = 0.0) -> Completion:
        """Return the stored completion for this exact request, or ask the model and store it.

        Args:
            prompt: the prompt.
            stop: stop sequences.
            max_tokens: the token limit.
            temperature: the temperature.

        Returns:
            The completion (``from_cache=True`` on a hit).

        Raises:
            LLMError: the wrapped model failed (a cache that cannot be used is bypassed, never raised).
        """
        return self._stored_or_asked(
            cache_key(self.inner.model_id, prompt, stop, max_tokens, temperature),
            lambda: self.inner.complete(prompt, stop=stop, max_tokens=max_tokens, temperature=temperature))

    def complete_chat(self, messages: Sequence[ChatMessage], *, stop: Sequence[str] = (), max_tokens: int = 256,
                      temperature: float = 0.0) -> Completion:
        """:meth:`complete` for a chat request, keyed on its turns.

        Raises:
            LLMError: the wrapped model has no ``"chat"`` capability, or its call failed.
        """
        chat: ChatLLM = self._able(CHAT)
        return self._stored_or_asked(
            cache_key(self.inner.model_id, messages, stop, max_tokens, temperature),
            lambda: chat.complete_chat(messages, stop=stop, max_tokens=max_tokens, temperature=temperature))

    def complete_sample(self, prompt: str, sample: int, *, stop: Sequence[str] = (), max_tokens: int = 256,
                        temperature: float = 1.0) -> Completion:
        """:meth:`complete` for one sample, keyed on which sample it is (sample 0 is not the plain
        completion: that one may be greedy).

        Raises:
            LLMError: the wrapped model has no ``"sampling"`` capability, or its call failed.
        """
        sampling: SamplingLLM = self._able(SAMPLING)
        return self._stored_or_asked(
            cache_key(self.inner.model_id, prompt, stop, max_tokens, temperature, sample=sample),
            lambda: sampling.complete_sample(prompt, sample, stop=stop, max_tokens=max_tokens,
                                             temperature=temperature))

    def _stored_or_asked(self, key: str, ask: Callable[[], Completion]) -> Completion:
        """The completion stored under ``key``, or ``ask()``'s, stored."""
        started = time.perf_counter()
        stored = self._stored_completion(key, started)
        if stored is not None:
            return stored
        completion = ask()
        self._store_completion(key, completion)
        return completion

    def complete_until(self, prompt: str, done: Done, *, stop: Sequence[str] = (), max_tokens: int = 256,
                       temperature: float = 0.0) -> Completion:
        """The stored answer that settles ``done``, or the wrapped model's ``complete_until``, stored.

        A stored plain completion of the same request answers it, then a stored
        early-stopped one that ran to its end, then one on which ``done`` holds (see the
        module docstring). A new answer is stored under an early-stop key, never under the
        plain one.

        Raises:
            LLMError: the wrapped model has no ``"early_stop"`` capability, or its call failed.
        """
        streaming: StreamingLLM = self._able(EARLY_STOP)
        started = time.perf_counter()
        request = (self.inner.model_id, prompt, stop, max_tokens, temperature)
        order: tuple[EarlyStop | None, ...] = (None, "finished", "stopped")
        for early_stop in order:
            stored = self._stored_completion(cache_key(*request, early_stop=early_stop), started)
            if stored is not None and (early_stop != "stopped" or done(stored.text)):
                return stored
        completion = streaming.complete_until(prompt, done, stop=stop, max_tokens=max_tokens, temperature=temperature)
        ended: EarlyStop = "stopped" if done(completion.text) else "finished"
        self._store_completion(cache_key(*request, early_stop=ended), completion, replace=True)
        return completion

    def score_continuations(self, prompt: str, candidates: Sequence[str]) -> Scores:
        """The stored scores of these candidates after this prompt, or the wrapped model's, stored.

        Returns:
            The scores (``from_cache=True``, ``cached_prompt_tokens=0`` and ``seconds`` the
            lookup time on a hit).

        Raises:
            LLMError: the wrapped model has no ``"scoring"`` capability, or its call failed.
        """
        scoring: ScoringLLM = self._able(SCORING)
        started = time.perf_counter()
        chosen = check_candidates(candidates, backend=self.inner.model_id)
        key = scores_key(self.inner.model_id, prompt, chosen)
        row = self._run("SELECT logprobs, floored, prompt_tokens FROM scores WHERE key = ?", (key,))
        if row is not None:
            logprobs, floored, prompt_tokens = row
            return Scores(candidates=chosen, logprobs=tuple(float(v) for v in json.loads(logprobs)),
                          floored=tuple(bool(f) for f in json.loads(floored)), prompt_tokens=int(prompt_tokens),
                          seconds=time.perf_counter() - started, from_cache=True)
        scores = scoring.score_continuations(prompt, chosen)
        self._run("INSERT OR IGNORE INTO scores VALUES (?, ?, ?, ?, ?, ?, ?)",
                  (key, self.inner.model_id, json.dumps(list(scores.logprobs)), json.dumps(list(scores.floored)),
                   scores.prompt_tokens, scores.seconds, time.time()))
        return scores

    def _stored_completion(self, key: str, started: float) -> Completion | None:
        row = self._run("SELECT text, prompt_tokens, completion_tokens FROM completions WHERE key = ?", (key,))
        if row is None:
            return None
        text, prompt_tokens, completion_tokens = row
        return Completion(text=str(text), prompt_tokens=int(prompt_tokens), completion_tokens=int(completion_tokens),
                          seconds=time.perf_counter() - started, from_cache=True)

    def _store_completion(self, key: str, completion: Completion, *, replace: bool = False) -> None:
        """Keep ``completion`` under ``key`` unless it is blank (a retry should ask the model again)."""
        if not completion.text.strip():
            return
        verb = "INSERT OR REPLACE" if replace else "INSERT OR IGNORE"
        self._run(f"{verb} INTO completions VALUES (?, ?, ?, ?, ?, ?, ?)",
                  (key, self.inner.model_id, completion.text, completion.prompt_tokens,
                   completion.completion_tokens, completion.seconds, time.time()))

    def __len__(self) -> int:
        """How many completions (plain and early-stopped) the file holds."""
        row = self._run("SELECT COUNT(*) FROM completions", ())
        return int(row[0]) if row is not None else 0

    def __repr__(self) -> str:
        return f"CachedLLM({self.inner!r}, path={str(self.path)!r})"

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, timeout=60)
        connection.execute("PRAGMA busy_timeout = 60000")
        return connection

    def _prepare(self) -> None:
        with self._ready_lock:
            if self._ready:
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = self._connect()
            try:
                connection.execute("PRAGMA journal_mode = WAL")
                with connection:
                    for statement in _SCHEMA:
                        connection.execute(statement)
            finally:
                connection.close()
            self._ready = True

    def _run(self, sql: str, parameters: tuple[object, ...]) -> tuple[Any, ...] | None:
        """Run one statement in its own connection and transaction; return its first row.

        A broken or vanished file is started again, up to twice (a deletion of the file and
        its -wal/-shm parts can take away the first new file too); if the statement still
        fails the cache is bypassed from then on and ``None`` is returned (a miss, or an
        insert skipped).
        """
        for attempt in range(_ATTEMPTS):
            with self._ready_lock:
                if self.bypassed is not None:
                    return None
                generation = self._generation
            try:
                self._prepare()
                connection = self._connect()
                try:
                    with connection:
                        row: tuple[Any, ...] | None = connection.execute(sql, parameters).fetchone()
                        return row
                finally:
                    connection.close()
            except (sqlite3.Error, OSError) as exc:
                if attempt < _ATTEMPTS - 1 and self._start_again(exc, generation):
                    continue
                self._bypass(exc)
        return None

    def _start_again(self, exc: BaseException, generation: int) -> bool:
        """Start a new cache file if ``exc`` says the file is corrupt or gone; whether to retry."""
        with self._ready_lock:
            if self._generation != generation:
                return True  # another thread started it again meanwhile
            name = getattr(exc, "sqlite_errorname", "")
            corrupt = name in ("SQLITE_CORRUPT", "SQLITE_NOTADB")
            # gone after it had worked: deleted (or replaced by an empty file) while in use; an I/O
            # error is what SQLite says when only its -wal/-shm parts were taken from under it
            vanished = self._ready and (not self.path.exists() or "no such table" in str(exc)
                                        or name.startswith("SQLITE_IOERR"))
            if corrupt and self.path.exists():
                aside = self.path.with_name(f"{self.path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
                try:
                    for suffix in ("", "-wal", "-shm"):
                        part = Path(f"{self.path}{suffix}")
                        if part.exists():
                            part.replace(Path(f"{aside}{suffix}"))
                except OSError:
                    return False
                logger.warning("LLM response cache %s is corrupted (%s: %s); moved it aside to %s and started "
                               "a new cache", self.path, type(exc).__name__, exc, aside.name)
            elif vanished:
                logger.warning("LLM response cache %s was deleted or emptied while in use (%s); starting a "
                               "new cache", self.path, exc)
            else:
                return False
            self._ready = False
            self._generation += 1
            return True

    def _bypass(self, exc: BaseException) -> None:
        """Turn the cache off for the rest of the process, with one warning."""
        with self._ready_lock:
            if self.bypassed is not None:
                return
            self.bypassed = f"{type(exc).__name__}: {exc}"
        full = is_disk_full(exc) or getattr(exc, "sqlite_errorname", "") == "SQLITE_FULL"
        advice = ("its disk is full: free space on it for the next run to use the cache" if full
                  else "check that the folder is writable and the disk not full")
        logger.warning("LLM response cache %s cannot be used (%s); answering every request from the model "
                       "without the cache for the rest of this run; %s", self.path, self.bypassed, advice)
