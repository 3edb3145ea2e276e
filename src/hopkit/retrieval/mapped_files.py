"""Files an index carries for every process to map: written whole or not at all, and checked whole once."""

from __future__ import annotations

import json
import os
import time
import zlib
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


# -- checked once, trusted while unchanged ------------------------------------------------------------------
#
# A finished index's big files are checked against the CRC-32s recorded when they were written (a full
# read); a file checked whole is stamped with what ``os.stat`` says of it (size, inode, modification and
# change times, in ns), beside it and in this process, and is not read again while these stay the same.
# Writing into the file changes both times; ``os.utime`` can set the modification time back but not the
# change time; a copy is another inode. A check taken within RACY_SECONDS of the file's last change is not
# trusted (as git's "racily clean" entries: a write in the same clock tick keeps the times), so the next
# load checks again.

RACY_SECONDS = 2.0
_checked_here: dict[str, tuple[int, ...]] = {}


CRC_CHUNK = 16 << 20  # bytes read at a time when checking a file


def file_crc32(path: Path) -> int:
    """The CRC-32 of the file at ``path``, read ``CRC_CHUNK`` bytes at a time (not mapped).

    Raises:
        OSError: the file cannot be read.
    """
    crc = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(CRC_CHUNK):
            crc = zlib.crc32(chunk, crc)
    return crc


def _stamp_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.checked")


def file_state(path: Path) -> tuple[int, ...]:
    """What a check's stamp holds of ``path``: size, inode, modification and change times (ns).

    Raises:
        OSError: ``path`` cannot be stat'ed.
    """
    status = os.stat(path)
    return (status.st_size, status.st_ino, status.st_mtime_ns, status.st_ctime_ns)


def checked_since(path: Path) -> bool:
    """Whether ``path`` was checked whole (:func:`mark_checked`), not too soon after its last change, and is
    unchanged since."""
    try:
        state = file_state(path)
    except OSError:
        return False
    stamp = _checked_here.get(str(path))
    if stamp is None:
        try:
            saved = json.loads(_stamp_path(path).read_text(encoding="utf-8"))
            stamp = tuple(int(value) for value in saved["state"]) + (int(saved["checked_ns"]),)
        except (OSError, ValueError, KeyError, TypeError):
            return False
    return stamp[:-1] == state and stamp[-1] - max(state[2], state[3]) > RACY_SECONDS * 1e9


def mark_checked(path: Path, state: tuple[int, ...], checked_ns: int) -> None:
    """Stamp ``path`` as checked whole from time ``checked_ns`` (taken before the read) when it was in
    ``state`` (:func:`file_state`, also taken before the read): in this process, and beside the file when
    its folder can be written (a read-only index is then checked once per process)."""
    if checked_ns - max(state[2], state[3]) <= RACY_SECONDS * 1e9:
        return  # too soon after its last change to tell a later change apart: checked again next time
    _checked_here[str(path)] = (*state, checked_ns)
    stamp = json.dumps({"state": list(state), "checked_ns": checked_ns})
    try:
        write_atomically(_stamp_path(path), lambda temporary: temporary.write_text(stamp, encoding="utf-8"))
    except OSError:
        pass  # a read-only folder: the stamp in this process stands


def matches_recorded_crc(path: Path, recorded: int) -> bool:
    """Whether the file at ``path`` still has the CRC-32 ``recorded`` when its index was finished: read whole
    (:func:`file_crc32`) the first time and after any change, then stamped (:func:`mark_checked`), so that
    while it stays unchanged a load only ``stat``s it (:func:`checked_since`).

    Raises:
        OSError: the file is missing or cannot be read.
    """
    if checked_since(path):
        return True
    state, started = file_state(path), time.time_ns()
    if file_crc32(path) != recorded:
        return False
    mark_checked(path, state, started)
    return True
