"""What the measurement scripts in ``benchmarks/`` share: llama.cpp's own counters, a recording of
every call a method makes, a fresh store, a model server's port and readiness, made-up words."""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hopkit.campaign.environment import BENCH_HOME
from hopkit.campaign.qa_bench import ingest
from hopkit.llm.llama_cpp import LlamaCppLLM
from hopkit.llm.protocol import Completion
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store

#: The prompt file whose text the rate measurements feed the model (in ``$HOPKIT_DATA_DIR``).
RATE_PROMPT_FILE = "ircot/prompts/hotpotqa/gold_with_2_distractors_context_cot_qa_codex.txt"
#: The calls ``benchmarks.server_replay`` recorded, and its replays' timings (read by ``prompt_lookup_bound``).
SERVER_REPLAY_CALLS = BENCH_HOME / "server_replay_calls.json"
SERVER_REPLAY_RESULTS = BENCH_HOME / "server_replay.json"


@dataclass(frozen=True)
class Counters:
    """llama.cpp's cumulative performance counters of one context."""

    batch_tokens: int
    batch_ms: float
    single_tokens: int
    single_ms: float

    @classmethod
    def read(cls, llm: LlamaCppLLM) -> Counters:
        import llama_cpp

        data = llama_cpp.llama_perf_context(llm._model.ctx)
        return cls(int(data.n_p_eval), float(data.t_p_eval_ms), int(data.n_eval), float(data.t_eval_ms))

    def __sub__(self, other: Counters) -> Counters:
        return Counters(self.batch_tokens - other.batch_tokens, self.batch_ms - other.batch_ms,
                        self.single_tokens - other.single_tokens, self.single_ms - other.single_ms)


@dataclass(frozen=True)
class RecordedCall:
    """One call the method made: its prompt, stop strings and completion."""

    prompt: str
    stop: tuple[str, ...]
    completion: Completion


def record_calls(llm: LlamaCppLLM) -> list[RecordedCall]:
    """Record every call made from now on (the list fills as the method runs)."""
    calls: list[RecordedCall] = []
    call = llm._call

    def recording(prompt: str, done: Any, stop: Any, max_tokens: int, temperature: float) -> Completion:
        completion = call(prompt, done, stop, max_tokens, temperature)
        calls.append(RecordedCall(prompt, tuple(stop), completion))
        return completion

    llm._call = recording  # type: ignore[method-assign]  (a benchmark's probe, not the product's path)
    return calls


def fresh_store(name: str, dataset: str) -> tuple[Any, Store]:
    """A new SQLite store in the bench folder holding ``dataset``'s corpus (a measurement is made
    whole in one process, so nothing is resumed)."""
    db = BENCH_HOME / f"{name}.db"
    for stale in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        stale.unlink(missing_ok=True)
    session_factory = DBConnection(f"sqlite:///{db}").get_session_factory()
    store = Store(session_factory)
    ingest(store, dataset)
    return session_factory, store


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until_up(url: str, server: subprocess.Popen[bytes], timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"llama_cpp.server exited with {server.returncode}; see its log in {BENCH_HOME}")
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except OSError:
            time.sleep(1)
    raise SystemExit(f"llama_cpp.server did not answer {url} within {timeout:.0f} s")


SYLLABLES = [c + v for c in "bdfgklmnprtvz" for v in "aeiou"]

def made_up_words(count: int) -> list[str]:
    """``count`` distinct pronounceable words that are no English word or stopword."""
    base = len(SYLLABLES)
    return ["".join(SYLLABLES[(i // base**j) % base] for j in range(3)) + "x" for i in range(count)]
