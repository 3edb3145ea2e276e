"""A real Ray cluster on 127.0.0.1 for the executor tests: a head and a second node, each its own processes.

Without Ray installed the tests skip, unless ``HOPKIT_REQUIRE_RAY=1`` (CI), where they fail.
Token authentication is off: the cluster listens on loopback only, for this test session.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

ENV_REQUIRE_RAY = "HOPKIT_REQUIRE_RAY"
RAY_ENV = {"RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LocalCluster:
    """``ray start --head`` and a second node (``ray start --address ... --block``) that a test may kill."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = _free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.env = {**os.environ, **RAY_ENV}
        self.ray = str(Path(sys.executable).with_name("ray"))
        self.second: subprocess.Popen[bytes] | None = None

    def start(self, head_cpus: int, node_cpus: int) -> None:
        subprocess.run([self.ray, "start", "--head", "--node-ip-address", "127.0.0.1", "--port", str(self.port),
                        "--num-cpus", str(head_cpus), "--include-dashboard=false", "--disable-usage-stats"],
                       env=self.env, check=True, capture_output=True, timeout=180)
        self.start_second_node(node_cpus)

    def start_second_node(self, cpus: int) -> None:
        log = open(self.folder / "second-node.log", "ab")
        self.second = subprocess.Popen(
            [self.ray, "start", "--address", self.address, "--node-ip-address", "127.0.0.1", "--num-cpus", str(cpus),
             "--block"], env=self.env, stdout=log, stderr=log, start_new_session=True)
        self.wait_for_nodes(2)

    def second_node_id(self) -> str:
        """The Ray node id of the second node (the one that is not the head)."""
        import ray

        return next(node["NodeID"] for node in ray.nodes()
                    if node.get("Alive") and "node:__internal_head__" not in node.get("Resources", {}))

    def alive_nodes(self) -> int:
        import ray

        return sum(1 for node in ray.nodes() if node.get("Alive"))

    def wait_for_nodes(self, count: int, seconds: float = 120) -> None:
        import ray

        if not ray.is_initialized():
            os.environ.update(RAY_ENV)
            ray.init(address=self.address, include_dashboard=False)
        deadline = time.monotonic() + seconds
        while self.alive_nodes() != count:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the local Ray cluster has {self.alive_nodes()} node(s), expected {count}")
            time.sleep(0.5)

    def kill_second_node(self) -> None:
        """SIGKILL to the second node's processes (its raylet; its workers then exit on their own)."""
        if self.second is not None:
            os.killpg(self.second.pid, signal.SIGKILL)
            self.second.wait(timeout=30)
            self.second = None

    def stop(self) -> None:
        import ray

        ray.shutdown()
        self.kill_second_node()
        subprocess.run([self.ray, "stop", "--force"], env=self.env, capture_output=True, timeout=120)


@pytest.fixture(scope="session")
def ray_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    try:
        import ray  # noqa: F401
    except ImportError:
        if os.environ.get(ENV_REQUIRE_RAY) == "1":
            pytest.fail(f"{ENV_REQUIRE_RAY}=1 but Ray is not installed (pip install 'hopkit[ray]')")
        pytest.skip("Ray is not installed (pip install 'hopkit[ray]')")
    cluster = LocalCluster(tmp_path_factory.mktemp("ray"))
    try:
        cluster.start(head_cpus=2, node_cpus=2)
        yield cluster
    finally:
        cluster.stop()
