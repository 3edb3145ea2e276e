"""Waiting for a state rather than for a time: what tests use to let another process or thread catch up."""

from __future__ import annotations

import time
from typing import Callable

from hopkit.errors import StoreError
from hopkit.store.store import Store


def wait_until(condition: Callable[[], bool], seconds: float, what: str) -> None:
    """Return as soon as ``condition()`` holds; fail, naming ``what``, if it does not within ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting after {seconds:g} s for {what}")
        time.sleep(0.05)


def answers_stored(store: Store) -> int:
    """How many questions the store's runs hold an answer to (0 before any run is registered)."""
    try:
        return sum(1 for run in store.runs() for result in store.results(run.run_id) if result.error is None)
    except StoreError:
        return 0
