"""Where saved indexes live, and how a folder is saved whole or not at all.

An index folder is named ``<kind>-<fingerprint[:12]>-<12 hex of its identity>``; a save writes
a temporary folder beside it and renames it, so a crash or a concurrent build never leaves a
half-written index under the final name.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import re
import shutil
import socket
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Mapping, Protocol, TypeVar

from hopkit.errors import RetrievalError
from hopkit.processes import process_alive
from hopkit.retrieval.index_meta import FORMAT as INDEX_FORMAT

logger = logging.getLogger(__name__)


class ChangedIndexFile(RetrievalError):
    """A file of a finished index no longer has the bytes recorded when the index was finished (or is gone):
    :func:`load_or_save` builds the index again; the message names the file."""

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(message)
        self.path = path


class Saveable(Protocol):
    def save(self, directory: Path) -> None: ...


_Saved = TypeVar("_Saved", bound=Saveable)


def index_path(index_dir: Path, kind: str, fingerprint: str, identity: Mapping[str, Any]) -> Path:
    """The folder of an index: ``<kind>-<fingerprint[:12]>-<12 hex of the identity's hash>``.

    The hash covers the index format too, so an index of another format is not found
    (and is built anew beside it) rather than refused.
    """
    identity = {**identity, "index_format": INDEX_FORMAT}
    digest = hashlib.sha256(json.dumps(identity, sort_keys=True).encode("utf-8")).hexdigest()[:12]
    return index_dir / f"{kind}-{fingerprint[:12]}-{digest}"


@contextmanager
def build_lock(path: Path) -> Iterator[None]:
    """Held while ``path`` is built: a second process building the same index waits, then loads it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.parent / f".{path.name}.lock", "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


_HOST = re.sub(r"[^0-9A-Za-z]", "", socket.gethostname())[:32] or "host"
_TMP_OWNER = re.compile(r"\.tmp-(?P<host>[0-9A-Za-z]+)-(?P<pid>\d+)-")
ABANDONED_AFTER_SECONDS = 24 * 3600  # a save folder that names no process of this machine


def _remove_abandoned_saves(path: Path) -> None:
    """Delete the temporary folders that saves of ``path`` left behind when their process was killed.

    A save writes ``.<name>.tmp-<host>-<pid>-<random>`` and renames it: a folder of this host whose
    process is gone is abandoned; one of another host (a shared disk) or of an older hopkit is
    removed only once it is a day old.
    """
    for folder in path.parent.glob(f".{path.name}.tmp-*"):
        owner = _TMP_OWNER.search(folder.name[len(path.name) + 1:])
        if owner is not None and owner["host"] == _HOST:
            abandoned = not process_alive(int(owner["pid"]))
        else:
            try:
                abandoned = time.time() - folder.stat().st_mtime > ABANDONED_AFTER_SECONDS
            except OSError:
                continue
        if abandoned:
            logger.info("removing %s, left by an index save that did not finish", folder)
            shutil.rmtree(folder, ignore_errors=True)


def _temporary_beside(path: Path) -> Path:
    """A new folder beside ``path`` that :func:`_remove_abandoned_saves` removes if its process dies."""
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_abandoned_saves(path)
    return Path(tempfile.mkdtemp(prefix=f".{path.name}.tmp-{_HOST}-{os.getpid()}-", dir=path.parent))


@contextmanager
def scratch_folder(path: Path) -> Iterator[Path]:
    """A folder beside the index ``path`` for what its build writes on the way (on the index's
    disk, not the system's temporary one); removed afterwards, or by a later build if killed."""
    folder = _temporary_beside(path)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def load_or_save(path: Path, *, load: Callable[[Path], _Saved], build: Callable[[], _Saved]) -> _Saved:
    if path.exists():
        logger.info("loading the index at %s", path)
        try:
            return load(path)
        except ChangedIndexFile as changed:
            logger.warning("%s; building the index again", changed)
            _set_aside(path, changed)
    logger.info("building the index for %s", path)
    retriever = build()
    tmp = _temporary_beside(path)
    try:
        retriever.save(tmp)
        try:
            os.rename(tmp, path)
        except OSError:
            if not path.exists():
                raise
            logger.info("another process saved %s first; keeping its copy", path)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
    return retriever


def _set_aside(path: Path, changed: ChangedIndexFile) -> None:
    """Move the damaged index folder ``path`` out of the way (as a save's temporary folder, which a later build
    removes if this process dies first) and remove it; gone already (another process set it aside) is fine.

    Raises:
        RetrievalError: it cannot be moved (a read-only folder): one line naming the file and the folder.
    """
    aside = None
    try:
        aside = _temporary_beside(path)
        os.rename(path, aside)
    except OSError as error:
        if aside is not None:
            shutil.rmtree(aside, ignore_errors=True)
        if isinstance(error, FileNotFoundError) and not path.exists():
            return
        raise RetrievalError(f"{changed}, and the index cannot be built again ({error.strerror or error}); "
                             f"delete {path} (or make its folder writable) and run again") from None
    shutil.rmtree(aside, ignore_errors=True)
