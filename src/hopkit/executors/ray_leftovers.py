"""What a private Ray cluster leaves behind when its driver is killed, and clearing it away.

A run's private cluster keeps its files in a folder of its own (``hopkit-ray-*`` in the temporary
folder, mode 0700), with a record of its driver: the process id, when that process started, and the
host. A driver killed with ``kill -9`` runs no exit handler: Ray's dashboard and runtime-env agents
outlive it, and its folder stays. The next private cluster started on the machine ends those
processes and removes the folder, for each folder of this user and host whose driver is gone (no
process has the recorded id, or the process that has it started at another time). A folder without
a record (not hopkit's, or one whose driver is still writing it) is left alone, and so is every
process that is not one of Ray's.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import socket
import time
from pathlib import Path
from typing import Iterator

log = logging.getLogger(__name__)

PREFIX = "hopkit-ray-"
RECORD = "driver.json"
PROC = Path("/proc")
# Ray's own processes: its binaries, and the Python processes that set their title to ``ray::...``
# (workers, agents) or run one of Ray's scripts (dashboard, monitor, log monitor).
RAY_BINARIES = ("raylet", "gcs_server")
END_WAIT_SECONDS = 5.0


def claim(folder: Path) -> None:
    """Record this process as the driver of the private cluster kept in ``folder``."""
    pid = os.getpid()
    record = {"pid": pid, "started": _start_ticks(pid), "host": socket.gethostname()}
    (folder / RECORD).write_text(json.dumps(record), encoding="utf-8")


def clear_abandoned(parent: Path) -> list[Path]:
    """End the Ray processes of each private-cluster folder in ``parent`` whose driver on this host is
    gone, and remove the folder.

    Returns:
        The folders removed.
    """
    removed = []
    for folder in sorted(parent.glob(PREFIX + "*")):
        if not _abandoned(folder):
            continue
        ended = _end_ray_processes_of(folder)
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
        log.info("removed %s, left by a Ray driver that is gone (%d of its processes ended)", folder, ended)
    return removed


def _abandoned(folder: Path) -> bool:
    """Whether ``folder`` is one of this user's private-cluster folders, of this host, whose driver is gone."""
    try:
        if folder.is_symlink() or not folder.is_dir() or folder.stat().st_uid != os.getuid():
            return False
        record = json.loads((folder / RECORD).read_text(encoding="utf-8"))
        pid, started, host = int(record["pid"]), record.get("started"), str(record["host"])
    except (OSError, ValueError, KeyError, TypeError):
        return False  # not hopkit's, or its driver has not written the record yet
    if host != socket.gethostname() or pid == os.getpid():
        return False
    return not _running(pid, started)


def _running(pid: int, started: int | None) -> bool:
    """Whether the process ``pid`` that started at ``started`` (clock ticks after boot) still runs."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # another user's process has the id: ours is gone, unless the start times cannot tell
    now = _start_ticks(pid)
    return started is None or now is None or now == started


def _start_ticks(pid: int) -> int | None:
    """When process ``pid`` started, in clock ticks after boot (None without /proc or for no such process)."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[19])  # field 22; the name in parentheses may hold spaces


def _end_ray_processes_of(folder: Path) -> int:
    """SIGKILL this user's Ray processes that name ``folder`` or hold a file in it; how many were sent it."""
    ended = [pid for pid in _own_processes() if _is_ray_process_of(pid, folder)]
    for pid in ended:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass  # gone meanwhile
    deadline = time.monotonic() + END_WAIT_SECONDS
    while any(_alive(pid) for pid in ended) and time.monotonic() < deadline:
        time.sleep(0.05)
    return len(ended)


def _own_processes() -> Iterator[int]:
    if not PROC.is_dir():
        return
    uid, own = os.getuid(), os.getpid()
    for entry in PROC.iterdir():
        if entry.name.isdigit() and int(entry.name) != own:
            try:
                if entry.stat().st_uid == uid:
                    yield int(entry.name)
            except OSError:
                continue


def _is_ray_process_of(pid: int, folder: Path) -> bool:
    try:
        argv = (PROC / str(pid) / "cmdline").read_bytes().decode("utf-8", "replace").split("\0")
    except OSError:
        return False
    is_ray = (argv[0].startswith("ray::") or os.path.basename(argv[0]) in RAY_BINARIES
              or any(arg.endswith(".py") and f"{os.sep}ray{os.sep}" in arg for arg in argv))
    if not is_ray:
        return False
    inside = str(folder) + os.sep
    if any(inside in arg for arg in argv):
        return True
    try:
        fds = list((PROC / str(pid) / "fd").iterdir())
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(fd).startswith(inside):
                return True
        except OSError:
            continue
    return False


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie no longer does: its parent may never reap it)."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"
