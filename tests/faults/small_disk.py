"""A real small file system (a tmpfs of 640 KiB) that a test fills up: what a full disk does to hopkit.

Mounting needs root; where it is not allowed the tests that use :func:`small_disk` are skipped.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Iterator

import pytest


@pytest.fixture()
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """The mount point of a new 640 KiB tmpfs, unmounted after the test."""
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=640k", "tmpfs", str(mount_point)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small file system here: {done.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def fill(folder: Path, leave: int = 0) -> None:
    """Write to ``folder`` until its file system is full, then free ``leave`` bytes: room for a few small
    rows, not for the large answers."""
    descriptor = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while os.write(descriptor, b"\0" * 4096):
            pass
    except OSError:
        pass
    finally:
        os.close(descriptor)
    os.truncate(folder / "filler", max(0, (folder / "filler").stat().st_size - leave))
