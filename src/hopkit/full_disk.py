"""A full disk, said the one way: which file or folder could not be written, and that space must be freed.

Whatever hopkit writes outside the store (an index under ``HOPKIT_HOME``, a report, a log file,
the LLM cache) can meet a full file system. The commands then stop with one line naming the
path and saying to free space (exit code 2), never with a traceback: a rerun of the same
command without freeing space fails the same way, so it is not called retryable.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

#: The error numbers of a full file system: no space left, or the user's quota used up.
DISK_FULL = frozenset({errno.ENOSPC, errno.EDQUOT})


def is_disk_full(error: BaseException) -> bool:
    """Whether ``error`` is an :class:`OSError` saying the file system is full."""
    return isinstance(error, OSError) and error.errno in DISK_FULL


def disk_full_cause(error: BaseException) -> OSError | None:
    """The full-disk :class:`OSError` ``error`` is or was raised from (its causes and contexts), else None."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, OSError) and current.errno in DISK_FULL:
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def free_space(what: str, error: OSError, path: str | Path | None = None, *, elsewhere: str = "") -> str:
    """The one line for a full disk: ``what`` could not be written to ``path`` (else to the error's own file
    name, when it has one), and what to do.

    Args:
        what: what was being written ("the index", "the report", "the log file").
        error: the full-disk error.
        path: where it was being written.
        elsewhere: the option or variable that puts it on another disk ("HOPKIT_HOME", "--out").
    """
    where = path if path is not None else error.filename
    reason = os.strerror(error.errno) if error.errno else str(error)
    target = f"{what} to {where}" if where is not None else what
    other = f" (or set {elsewhere} to a folder on another disk)" if elsewhere else ""
    return f"cannot write {target}: {reason} (the disk is full); free space on that disk{other} and run the same " \
           "command again"


def with_free_space(message: str, error: BaseException) -> str:
    """``message`` (which names the path), followed by the advice to free space when ``error`` came from a full
    disk and ``message`` does not say so yet."""
    if disk_full_cause(error) is None or "free space" in message:
        return message
    return f"{message} (the disk is full); free space on that disk and run the same command again"
