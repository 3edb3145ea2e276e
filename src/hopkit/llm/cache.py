"""An on-disk response cache (one SQLite file) in front of any LLM.

Safe for many threads and processes: every lookup and insert opens its own short
connection; the file is in WAL mode and writers wait for each other. Two callers
missing on the same key at once both call the model; the first answer stored wins.
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

from hopkit.errors import LLMError
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
    temperature > 0 are cached too (a rerun then sees the same sample).

    Args:
        inner: the LLM to cache.
        path: the SQLite file (created, with its folder, on first use).
    """

    def __init__(self, inner: LLM, path: str | Path) -> None:
        self.inner = inner
        self.path = Path(path).expanduser()
        self._ready = False
        self._ready_lock = threading.Lock()

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
            LLMError: the cache file cannot be used, or the wrapped model failed.
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
        """Run one statement in its own connection and transaction; return its first row."""
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
            raise LLMError(f"LLM response cache {self.path}: {type(exc).__name__}: {exc}; "
                           f"check the path is writable, or delete the file to start a new cache") from exc
