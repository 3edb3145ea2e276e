"""Joining a Ray cluster, or starting a private one for a run, and what workers inherit.

Without an address a run starts a Ray cluster of its own on this machine, on loopback, with
its own temporary folder, removed at exit: ``ray.init()`` with no address joins whatever
cluster was last started on the machine (Ray reads its address from a file in its shared
temporary folder, or from ``RAY_ADDRESS``), possibly another user's, and the run's workers
get its environment and its store URL. With an address the run says which cluster it joined
and what its workers are given, and the user chooses the variables (``ray_env``).
"""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Sequence

from hopkit import environment
from hopkit.errors import ConfigError

log = logging.getLogger(__name__)

# The driver's environment variables the workers see by default: hopkit's own, the model servers' and the Hub's.
FORWARDED = ("HOPKIT_*", "OPENAI_*", "HF_*")


def import_ray() -> Any:
    """The ``ray`` module.

    Raises:
        ConfigError: Ray is not installed, saying how to install it.
    """
    try:
        import ray
    except ImportError:
        raise ConfigError("the Ray executor needs Ray: pip install 'hopkit[ray]' (or pip install 'ray>=2.40')") from None
    return ray


def forwarded_environment(patterns: Sequence[str] | None = None) -> dict[str, str]:
    """The variables workers get from the driver, and the module path (so workers import the same
    hopkit as the driver).

    Args:
        patterns: names or shell patterns (``HOPKIT_*``) of the variables to pass on; None: hopkit's
            settings, the model servers' URLs and keys and the Hub's (every ``HOPKIT_*``, ``OPENAI_*``
            and ``HF_*`` variable); empty: none.
    """
    import hopkit

    chosen = environment.variables_matching(FORWARDED if patterns is None else patterns)
    source = str(Path(hopkit.__file__).resolve().parents[1])
    chosen["PYTHONPATH"] = os.pathsep.join(dict.fromkeys([source, *environment.python_path()]))
    return chosen


def connect(address: str | None) -> Any:
    """Join the cluster at ``address``, or (None) start a private one on this machine, once per process.

    Raises:
        ConfigError: Ray is missing, no cluster answers at ``address``, or a private one cannot start.
    """
    ray = import_ray()
    if ray.is_initialized():
        return ray
    if address is None:
        return _start_private(ray)
    try:
        ray.init(address=address, include_dashboard=False, logging_level=logging.WARNING, log_to_driver=True)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise ConfigError(f"could not join a Ray cluster at {address!r}: {exc}. Start one with `ray start --head` "
                          "and pass --ray-address auto (or its address)") from exc
    return ray


def _start_private(ray: Any) -> Any:
    """A Ray cluster of this process alone: on loopback, in a temporary folder of its own (removed at exit),
    whatever other cluster runs on the machine or ``RAY_ADDRESS`` names."""
    folder = tempfile.mkdtemp(prefix="hopkit-ray-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    try:
        ray.init(address="local", _temp_dir=folder, _node_ip_address="127.0.0.1", include_dashboard=False,
                 logging_level=logging.WARNING, log_to_driver=True)
    except (ConnectionError, RuntimeError, ValueError, OSError) as exc:
        raise ConfigError(f"could not start a Ray cluster on this machine (in {folder}): {exc}") from exc
    atexit.register(ray.shutdown)  # runs before the folder's removal (atexit is last in, first out)
    log.info("started a private Ray cluster for this run (its files in %s)", folder)
    return ray


def joined_notice(ray: Any, address: str, forwarded: Sequence[str], store: str) -> str:
    """What a run hands the cluster it joined: which cluster, and what its workers are given."""
    nodes = alive_nodes(ray)
    cpus = ray.cluster_resources().get("CPU", 0)
    names = ", ".join(sorted(forwarded)) or "none"
    return (f"joined the Ray cluster at {address} ({ray.get_runtime_context().gcs_address}, {nodes} node(s), "
            f"{cpus:g} CPUs): its workers get the store {store} and these variables: {names} (choose them with "
            "--ray-env or ray_env:, e.g. --ray-env 'HOPKIT_*,OPENAI_BASE_URL')")


def alive_nodes(ray: Any) -> int:
    """How many nodes of the cluster are alive."""
    return sum(1 for node in ray.nodes() if node.get("Alive"))
