"""Joining a Ray cluster (or starting Ray on this machine) for a run, and what workers inherit."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from hopkit import environment
from hopkit.errors import ConfigError

log = logging.getLogger(__name__)

# The driver's environment variables the workers see too: hopkit's own, the model servers' and the Hub's.
FORWARDED_PREFIXES = ("HOPKIT_", "OPENAI_", "HF_")


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


def forwarded_environment() -> dict[str, str]:
    """The variables workers get from the driver: hopkit's settings, server URLs and keys, and the
    module path (so workers import the same hopkit as the driver)."""
    import hopkit

    chosen = environment.variables_starting_with(FORWARDED_PREFIXES)
    source = str(Path(hopkit.__file__).resolve().parents[1])
    chosen["PYTHONPATH"] = os.pathsep.join(dict.fromkeys([source, *environment.python_path()]))
    return chosen


def connect(address: str | None) -> Any:
    """Join the cluster at ``address`` (None: start Ray on this machine), once per process.

    Raises:
        ConfigError: Ray is missing or no cluster answers at ``address``.
    """
    ray = import_ray()
    if ray.is_initialized():
        return ray
    try:
        ray.init(address=address, include_dashboard=False, logging_level=logging.WARNING, log_to_driver=True)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        where = f"at {address!r}" if address else "on this machine"
        raise ConfigError(f"could not join a Ray cluster {where}: {exc}. Start one with `ray start --head` "
                          "and pass --ray-address auto (or its address)") from exc
    log.info("joined Ray: %s", ray.cluster_resources())
    return ray


def alive_nodes(ray: Any) -> int:
    """How many nodes of the cluster are alive."""
    return sum(1 for node in ray.nodes() if node.get("Alive"))
