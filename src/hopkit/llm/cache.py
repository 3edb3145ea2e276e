"""An on-disk response cache (one SQLite file) in front of any LLM.

Safe for many threads and processes: every lookup and insert opens its own short
connection; the file is in WAL mode and writers wait for each other. Two callers
missing on the same key at once both call the model; the first answer stored wins.

A broken cache never fails a question. A file that is not (or no longer) a valid
SQLite database is moved aside as ``<name>.corrupt-<timestamp>`` and a new cache is
started; a file deleted during a run is created again; a cache that still cannot be
used (unwritable folder, disk full, locked too long) is bypassed for the rest of the
process: the model answers every request. Each of these is logged as a warning.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Sequence

from hopkit.llm.protocol import LLM, Completion

logger = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS completions (
    key TEXT PRIMARY KEY,
    model_id TEXT NOT NULL,
    text TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    seconds REAL NOT NULL,
    created REAL NOT NULL
)
"""


def cache_key(model_id: str, prompt: str, stop: Sequence[str], max_tokens: int, temperature: float) -> str:
    """The sha256 hex digest identifying one request.

    Args:
        model_id: the model's id.
        prompt: the prompt.
        stop: stop sequences, in order.
        max_tokens: the token limit.
        temperature: the temperature (as a float, so 0 and 0.0 are one key).

    Returns:
        64 hex characters.
    """
    material = json.dumps([model_id, prompt, list(stop), int(max_tokens), float(temperature)],
                          ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


class CachedLLM:
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
        self.inner = inner
        self.path = Path(path).expanduser()
        self.bypassed: str | None = None
        self._ready = False
        self._ready_lock = threading.Lock()
        self._generation = 0  # bumped each time the file is started again

    @property
    def model_id(self) -> str:
        """The wrapped model's id."""
        return self.inner.model_id

    @property
    def context_length(self) -> int:
        """The wrapped model's context window."""
        return self.inner.context_length

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
        started = time.perf_counter()
        key = cache_key(self.inner.model_id, prompt, stop, max_tokens, temperature)
        row = self._run("SELECT text, prompt_tokens, completion_tokens FROM completions WHERE key = ?", (key,))
        if row is not None:
            text, prompt_tokens, completion_tokens = row
            return Completion(text=str(text), prompt_tokens=int(prompt_tokens),
                              completion_tokens=int(completion_tokens),
                              seconds=time.perf_counter() - started, from_cache=True)
        completion = self.inner.complete(prompt, stop=stop, max_tokens=max_tokens, temperature=temperature)
        if not completion.text.strip():
            return completion
        self._run("INSERT OR IGNORE INTO completions VALUES (?, ?, ?, ?, ?, ?, ?)",
                  (key, self.inner.model_id, completion.text, completion.prompt_tokens,
                   completion.completion_tokens, completion.seconds, time.time()))
        return completion

    def count_tokens(self, text: str) -> int:
        """The wrapped LLM's token count."""
        return self.inner.count_tokens(text)

    def __len__(self) -> int:
        """How many completions the file holds."""
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
                    connection.execute(_SCHEMA)
            finally:
                connection.close()
            self._ready = True

    def _run(self, sql: str, parameters: tuple[object, ...]) -> tuple[Any, ...] | None:
        """Run one statement in its own connection and transaction; return its first row.

        A broken or vanished file is started again once; if the statement still fails the
        cache is bypassed from then on and ``None`` is returned (a miss, or an insert skipped).
        """
        for attempt in range(2):
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
                if attempt == 0 and self._start_again(exc, generation):
                    continue
                self._bypass(exc)
        return None

    def _start_again(self, exc: BaseException, generation: int) -> bool:
        """Start a new cache file if ``exc`` says the file is corrupt or gone; whether to retry."""
        with self._ready_lock:
            if self._generation != generation:
                return True  # another thread started it again meanwhile
            corrupt = getattr(exc, "sqlite_errorname", "") in ("SQLITE_CORRUPT", "SQLITE_NOTADB")
            # gone after it had worked: deleted (or replaced by an empty file) while in use
            vanished = self._ready and (not self.path.exists() or "no such table" in str(exc))
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
        logger.warning("LLM response cache %s cannot be used (%s); answering every request from the model "
                       "without the cache for the rest of this run. Check that the folder is writable and the "
                       "disk not full", self.path, self.bypassed)
