"""Files an index carries for every process to map: written whole or not at all."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import numpy as np


def write_atomically(path: Path, write: Callable[[Path], None]) -> None:
    """``write(temporary)`` beside ``path``, then renamed over it: a reader sees all of it or none."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(temporary)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def save_array(path: Path, array: np.ndarray) -> None:
    """``array`` as a ``.npy`` file at ``path``, written atomically."""

    def write(temporary: Path) -> None:
        with temporary.open("wb") as file:
            np.save(file, array)

    write_atomically(path, write)
