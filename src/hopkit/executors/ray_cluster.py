"""Joining a Ray cluster, or starting a private one for a run, and what workers inherit.

Without an address a run starts a Ray cluster of its own on this machine, with its own
temporary folder, removed at exit: ``ray.init()`` with no address joins whatever cluster was
last started on the machine (Ray reads its address from a file in its shared temporary folder,
or from ``RAY_ADDRESS``), possibly another user's, and the run's workers get its environment
and its store URL. That cluster listens on 127.0.0.1 only and asks every caller for a token
made for the run (Ray's token authentication, whatever ``RAY_AUTH_MODE`` says). With an address
the run says which cluster it joined and what its workers are given, and the user chooses the
variables (``ray_env``).
"""

from __future__ import annotations

import atexit
import importlib
import logging
import os
import secrets
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Sequence

from hopkit import environment
from hopkit.errors import ConfigError
from hopkit.executors import ray_leftovers

log = logging.getLogger(__name__)

# The driver's environment variables the workers see by default: hopkit's own, the model servers' and the Hub's.
FORWARDED = ("HOPKIT_*", "OPENAI_*", "HF_*")
# The only address a private cluster listens on.
LOOPBACK = "127.0.0.1"


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
    """A Ray cluster of this process alone, whatever other cluster runs on the machine or ``RAY_ADDRESS``
    names: on loopback, with a token of its own, in a folder of its own (mode 0700, removed at exit).

    What a killed driver's cluster left on this machine (its agents, its folder) is cleared first."""
    parent = Path(tempfile.gettempdir())
    ray_leftovers.clear_abandoned(parent)
    folder = Path(tempfile.mkdtemp(prefix=ray_leftovers.PREFIX, dir=parent))  # 0700: Ray's own folder goes inside
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    ray_leftovers.claim(folder)
    authenticated = _require_token(folder / "token")
    try:
        with _loopback():
            # Ray makes the folders it creates writable by everyone; the one inside ours is reached through ours only.
            ray.init(address="local", _temp_dir=str(folder / "ray"), _node_ip_address=LOOPBACK,
                     include_dashboard=False, logging_level=logging.WARNING, log_to_driver=True)
    except (ConnectionError, RuntimeError, ValueError, OSError) as exc:
        raise ConfigError(f"could not start a Ray cluster on this machine (in {folder}): {exc}") from exc
    atexit.register(ray.shutdown)  # runs before the folder's removal (atexit is last in, first out)
    address = ray.util.get_node_ip_address()
    if address != LOOPBACK:
        ray.shutdown()
        raise ConfigError(f"the private Ray cluster would listen on {address}, not {LOOPBACK} (Ray {ray.__version__}): "
                          f"start one with `ray start --head --node-ip-address {LOOPBACK}` and pass --ray-address auto")
    if not authenticated:
        log.warning("this Ray (%s) has no token authentication (Ray 2.52 and later): the private cluster listens on "
                    "%s only, but any process of this machine can join it; pip install 'ray>=2.52'",
                    ray.__version__, LOOPBACK)
    log.info("started a private Ray cluster for this run (its files in %s)", folder)
    return ray


@contextmanager
def _loopback() -> Iterator[None]:
    """Keep ``ray.init`` on loopback: it turns a ``_node_ip_address`` of 127.0.0.1 into the machine's address
    (``services.resolve_ip_for_localhost``) unless Ray clusters are off (as on macOS and Windows), and its
    processes bind the address they are given (or every interface)."""
    constants = importlib.import_module("ray._private.ray_constants")
    before = getattr(constants, "ENABLE_RAY_CLUSTER", True)
    setattr(constants, "ENABLE_RAY_CLUSTER", False)  # read by services.get_node_ip_address on each call
    try:
        yield
    finally:
        setattr(constants, "ENABLE_RAY_CLUSTER", before)


def _require_token(path: Path) -> bool:
    """Turn Ray's token authentication on for this process and the cluster it starts, with a new token
    in ``path`` (mode 0600): a caller without it is refused. Whether this Ray can (2.52 and later)."""
    try:
        from ray._raylet import AuthenticationTokenLoader, Config
    except ImportError:
        return False
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="ascii") as file:
        file.write(secrets.token_hex(32))
    # The cluster's processes inherit these; a RAY_AUTH_TOKEN of the environment would win over the file.
    environment.unset_variable("RAY_AUTH_TOKEN")
    environment.set_variable("RAY_AUTH_TOKEN_PATH", str(path))
    environment.set_variable("RAY_AUTH_MODE", "token")
    Config.initialize("")  # Ray read RAY_AUTH_MODE when it was imported, and caches the token it found
    AuthenticationTokenLoader.instance().reset_cache()
    return True


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
