"""What a private Ray cluster's next run clears, and what it leaves alone (without Ray: stand-in processes
named the way Ray names its agents, holding a file in the folder as Ray's do)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path
from typing import Any, Iterator

import pytest

from hopkit.executors import ray_leftovers
from tests.polling import wait_until

pytestmark = pytest.mark.unit

PROC = Path("/proc")


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        process.kill()
        process.wait()


def start(processes: list[subprocess.Popen[bytes]], argv0: str, command: str, log: Path | None = None
          ) -> subprocess.Popen[bytes]:
    """``command`` run under the name ``argv0``, its output to ``log``, as Ray's agents write theirs."""
    out = open(log, "ab") if log is not None else subprocess.DEVNULL
    process = subprocess.Popen(["bash", "-c", f'exec -a "{argv0}" {command}'], stdout=out)
    if log is not None:
        out.close()
    processes.append(process)
    return process


def start_ticks(pid: int) -> int:
    return int((PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[19])


def cluster_folder(parent: Path, name: str, record: dict[str, Any] | None) -> Path:
    folder = parent / f"{ray_leftovers.PREFIX}{name}"
    (folder / "ray" / "logs").mkdir(parents=True)
    if record is not None:
        (folder / ray_leftovers.RECORD).write_text(json.dumps(record))
    return folder


def running(process: subprocess.Popen[bytes]) -> bool:
    return process.poll() is None


@pytest.mark.skipif(not PROC.is_dir(), reason="reads processes in /proc (Linux)")
def test_only_the_ray_processes_and_folders_of_a_gone_driver_of_this_host_are_cleared(
        tmp_path: Path, processes: list[subprocess.Popen[bytes]]) -> None:
    host = socket.gethostname()
    live = start(processes, "python", "sleep 300")
    # the record's process id now belongs to a process that started at another time: its driver is gone
    gone = cluster_folder(tmp_path, "gone", {"pid": live.pid, "started": start_ticks(live.pid) + 1, "host": host})
    agent = start(processes, "ray::DashboardAgent", "sleep 300", gone / "ray" / "logs" / "dashboard_agent.out")
    reader = start(processes, "tail", f"tail -f {gone / 'ray' / 'logs' / 'dashboard_agent.out'}")  # not Ray's
    kept = {
        "alive": cluster_folder(tmp_path, "alive", {"pid": live.pid, "started": start_ticks(live.pid), "host": host}),
        "elsewhere": cluster_folder(tmp_path, "elsewhere", {"pid": live.pid, "started": 0, "host": host + "-other"}),
        "unclaimed": cluster_folder(tmp_path, "unclaimed", None),
        "unreadable": cluster_folder(tmp_path, "unreadable", None),
    }
    (kept["unreadable"] / ray_leftovers.RECORD).write_text("{not json")
    alive_agent = start(processes, "ray::RuntimeEnvAgent", "sleep 300",
                        kept["alive"] / "ray" / "logs" / "runtime_env_agent.out")
    wait_until(lambda: all((PROC / str(p.pid) / "cmdline").read_bytes().startswith(b"ray::") or p is reader
                           or p is live for p in processes), 10, "the stand-ins to take their names")

    assert ray_leftovers.clear_abandoned(tmp_path) == [gone]

    assert not gone.exists()
    agent.wait(timeout=10)  # ended (SIGKILL)
    assert running(reader) and running(alive_agent) and running(live)
    assert all(folder.exists() for folder in kept.values())


@pytest.mark.skipif(not PROC.is_dir(), reason="reads processes in /proc (Linux)")
def test_a_claimed_folder_names_this_process_and_is_kept_while_it_runs(tmp_path: Path) -> None:
    folder = cluster_folder(tmp_path, "mine", None)
    ray_leftovers.claim(folder)
    record = json.loads((folder / ray_leftovers.RECORD).read_text())
    assert record == {"pid": os.getpid(), "started": start_ticks(os.getpid()), "host": socket.gethostname()}
    assert ray_leftovers.clear_abandoned(tmp_path) == [] and folder.exists()
