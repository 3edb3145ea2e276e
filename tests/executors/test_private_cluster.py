"""The private Ray cluster of a run without --ray-address: loopback only, a token of its own, and what a
killed driver left cleared by the next run (issue 70).

Each test reads what the cluster really does: the listening sockets of the driver and of every process
under it (``/proc/net/tcp`` and ``tcp6``), a join attempt from a process outside the run, and the
processes and folder a ``kill -9`` leaves.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest

from hopkit.llm.testing_server import Fault, FakeOpenAIServer, serve_fake_openai
from hopkit.records import Corpus, Paragraph, Query
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store
from tests.polling import wait_until

pytestmark = [pytest.mark.slow]

PROC = Path("/proc")
QUESTIONS = 2


@pytest.fixture(scope="module", autouse=True)
def _ray_on_linux() -> None:
    if not (PROC / "net" / "tcp").exists():
        pytest.skip("reads the sockets of processes in /proc (Linux)")
    try:
        import ray  # noqa: F401
    except ImportError:
        if os.environ.get("HOPKIT_REQUIRE_RAY") == "1":
            pytest.fail("HOPKIT_REQUIRE_RAY=1 but Ray is not installed (pip install 'hopkit[ray]')")
        pytest.skip("Ray is not installed (pip install 'hopkit[ray]')")


# --- what the processes of a run are and where they listen ----------------------------------------------


def _parents() -> dict[int, int]:
    parents = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
    return parents


def process_tree(root: int) -> list[int]:
    """``root`` and every process under it."""
    parents = _parents()
    tree, frontier = [root], [root]
    while frontier:
        frontier = [pid for pid, parent in parents.items() if parent in frontier]
        tree += frontier
    return tree


def _address(hex_address: str) -> tuple[ipaddress.IPv4Address | ipaddress.IPv6Address, int]:
    """An address of /proc/net/tcp{,6}: the IP's 32-bit words in host (little-endian) order, then the port."""
    ip_hex, port_hex = hex_address.split(":")
    raw = b"".join(bytes.fromhex(ip_hex[i:i + 8])[::-1] for i in range(0, len(ip_hex), 8))
    return ipaddress.ip_address(raw), int(port_hex, 16)


def _listening_by_inode() -> dict[int, tuple[Any, int]]:
    sockets = {}
    for table in ("tcp", "tcp6"):
        for line in (PROC / "net" / table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A":  # LISTEN
                sockets[int(fields[9])] = _address(fields[1])
    return sockets


@dataclass(frozen=True)
class Listener:
    pid: int
    name: str
    ip: ipaddress.IPv4Address | ipaddress.IPv6Address
    port: int

    @property
    def on_loopback(self) -> bool:
        mapped = getattr(self.ip, "ipv4_mapped", None)
        return self.ip.is_loopback or (mapped is not None and mapped.is_loopback)


def listeners(pids: list[int]) -> list[Listener]:
    """The TCP sockets the processes ``pids`` listen on."""
    table = _listening_by_inode()
    found = []
    for pid in pids:
        with contextlib.suppress(OSError):
            name = (PROC / str(pid) / "comm").read_text().strip()
            for fd in (PROC / str(pid) / "fd").iterdir():
                with contextlib.suppress(OSError):
                    target = os.readlink(fd)
                    if target.startswith("socket:["):
                        inode = int(target[len("socket:["):-1])
                        if inode in table:
                            found.append(Listener(pid, name, *table[inode]))
    return found


def cluster_folder(pids: list[int]) -> Path:
    """The run's own folder in the temporary folder: the one its GCS server keeps its logs under."""
    temp = Path(tempfile.gettempdir()).resolve()
    for pid in pids:
        with contextlib.suppress(OSError):
            argv = (PROC / str(pid) / "cmdline").read_bytes().decode().split("\0")
            if Path(argv[0]).name == "gcs_server":
                logs = Path(next(arg.split("=", 1)[1] for arg in argv if arg.startswith("--log_dir=")))
                return temp / logs.resolve().relative_to(temp).parts[0]
    raise AssertionError("no GCS server among the run's processes")


def processes_using(folder: Path) -> list[int]:
    """The processes that name ``folder`` on their command line or hold a file in it."""
    inside = str(folder) + os.sep
    using = []
    for entry in PROC.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        with contextlib.suppress(OSError):
            if (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                continue  # a zombie runs nothing
            if inside in (entry / "cmdline").read_bytes().decode("utf-8", "replace"):
                using.append(int(entry.name))
                continue
            for fd in (entry / "fd").iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd).startswith(inside):
                        using.append(int(entry.name))
                        break
    return using


def machine_address() -> str | None:
    """This machine's address on its network (the one Ray would advertise), or None without one."""
    from ray._common.network_utils import node_ip_address_from_perspective

    address = node_ip_address_from_perspective(None)
    return None if ipaddress.ip_address(address).is_loopback else address


# --- a run of `hopkit run --executor ray` without an address ---------------------------------------------


def town_of(prompt: str) -> str:
    return "Ville0"


def toy_database(folder: Path) -> str:
    url = f"sqlite:///{folder / 'hopkit.db'}"
    queries = tuple(Query(id=f"q{i}", text=f"Where was person {i} born?", answers=("Ville0",))
                    for i in range(QUESTIONS))
    Store(DBConnection(url).get_session_factory()).add_corpus(
        Corpus("toy", (Paragraph(0, "Ville0", "Ville0 is a town."),), queries))
    return url


def start_run(folder: Path, server: FakeOpenAIServer) -> subprocess.Popen[str]:
    """`hopkit run` on the Ray executor without an address; RAY_AUTH_MODE=disabled, as the tests set it."""
    url = toy_database(folder)
    env = {**os.environ, "OPENAI_BASE_URL": server.base_url, "HOPKIT_OPENAI_MODEL": "fake-model",
           "HOPKIT_HOME": str(folder / "home"), "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
    return subprocess.Popen(
        [sys.executable, "-m", "hopkit.cli", "--db", url, "run", "nor", "--llm", "openai-compatible",
         "--dataset", "toy", "--executor", "ray", "--workers", "1", "--cpus-per-worker", "0.5", "--quiet"],
        env=env, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def hang(number: int, prompt: str) -> Fault:
    return Fault("hang", seconds=600)


def wait_for_a_question(process: subprocess.Popen[str], server: FakeOpenAIServer) -> None:
    """Until a worker of the run asks the model: the whole cluster is up."""
    deadline = time.monotonic() + 300
    while not server.requests:
        if process.poll() is not None:
            raise AssertionError(f"the run ended before asking the model: {process.communicate()[1]}")
        assert time.monotonic() < deadline, "no worker of the run asked the model within 300 s"
        time.sleep(0.2)


def stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()


@dataclass(frozen=True)
class LiveRun:
    driver: int
    processes: list[int]


@pytest.fixture(scope="module")
def live_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveRun]:
    """A run whose worker waits on the model: its private cluster up, as the tests read it."""
    with serve_fake_openai(town_of, faults=hang) as server:
        process = start_run(tmp_path_factory.mktemp("live"), server)
        try:
            wait_for_a_question(process, server)
            yield LiveRun(process.pid, process_tree(process.pid))
        finally:
            stop(process)


def test_the_private_cluster_listens_on_loopback_only(live_run: LiveRun) -> None:
    """Failure 1: the GCS, raylets, workers and agents listened on every interface (``*:PORT``), the runtime-env
    agent on the machine's address: ``ray.init`` turns a node address of 127.0.0.1 into the machine's."""
    found = listeners(process_tree(live_run.driver))
    assert {"gcs_server", "raylet"} <= {listener.name for listener in found}, found  # the test sees the cluster
    assert [listener for listener in found if not listener.on_loopback] == []
    folder = cluster_folder(live_run.processes)
    assert folder.stat().st_mode & 0o777 == 0o700, oct(folder.stat().st_mode)  # Ray widened it to 0777


def test_a_process_outside_the_run_cannot_join_its_cluster(live_run: LiveRun, tmp_path: Path) -> None:
    """Failure 1: with RAY_AUTH_MODE=disabled another process joined through the machine's address and ran a
    task. Now nothing answers there, and on loopback the GCS refuses a caller without the run's token."""
    found = listeners(process_tree(live_run.driver))
    (gcs_port,) = {listener.port for listener in found if listener.name == "gcs_server"}
    outside = machine_address()
    if outside is not None:
        for listener in found:
            with pytest.raises(ConnectionRefusedError):
                socket.create_connection((outside, listener.port), timeout=10).close()
    join = ("import os, ray\n"
            f"ray.init(address='127.0.0.1:{gcs_port}')\n"
            "print('JOINED', ray.get(ray.remote(lambda: os.getpid()).remote()))\n")
    env = {name: value for name, value in os.environ.items() if not name.startswith("RAY_AUTH_TOKEN")}
    env.update({"RAY_AUTH_MODE": "disabled", "HOME": str(tmp_path), "RAY_USAGE_STATS_ENABLED": "0",
                "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"})  # dial 127.0.0.1 itself, not the machine's address
    attempt = subprocess.run([sys.executable, "-c", join], env=env, capture_output=True, text=True, timeout=240)
    assert "JOINED" not in attempt.stdout
    assert attempt.returncode != 0
    assert "Authentication token is missing or incorrect" in attempt.stderr, attempt.stderr[-2000:]


def _a_folder(name: str, record: dict[str, Any] | None) -> Path:
    folder = Path(tempfile.mkdtemp(prefix=f"hopkit-ray-{name}-"))
    if record is not None:
        (folder / "driver.json").write_text(json.dumps(record))
    return folder


def test_what_a_killed_driver_left_is_cleared_by_the_next_run(tmp_path: Path) -> None:
    """Papercut: after `kill -9` of a driver its DashboardAgent and RuntimeEnvAgent stayed, and its folder
    (widened to 0777 by Ray). The next run ends what a dead driver of this host left, and only that."""
    alive = _a_folder("alive", {"pid": os.getpid(), "host": socket.gethostname()})  # a running driver's
    unknown = _a_folder("unknown", None)  # not hopkit's, or not yet claimed
    try:
        (tmp_path / "killed").mkdir()
        with serve_fake_openai(town_of, faults=hang) as server:
            killed = start_run(tmp_path / "killed", server)
            try:
                wait_for_a_question(killed, server)
                folder = cluster_folder(process_tree(killed.pid))
                killed.kill()  # SIGKILL to the driver alone: no exit handler runs
                killed.communicate()
            finally:
                stop(killed)
        left = processes_using(folder)
        assert left and folder.exists()  # the fault: Ray's agents outlive their driver, and so does its folder

        with serve_fake_openai(town_of) as server:
            (tmp_path / "next").mkdir()
            following = start_run(tmp_path / "next", server)
            out, err = following.communicate(timeout=600)
        assert following.returncode == 0, err
        assert f"{QUESTIONS} answered now, 0 failed" in out
        assert not folder.exists()
        wait_until(lambda: not processes_using(folder), 10, f"the processes {left} left by the killed driver to end")
        assert alive.exists() and unknown.exists()
    finally:
        for folder_kept in (alive, unknown):
            with contextlib.suppress(OSError):
                (folder_kept / "driver.json").unlink()
            with contextlib.suppress(OSError):
                folder_kept.rmdir()
