"""The executor options of ``hopkit run`` and ``hopkit sweep``, over a config's own ``executor`` fields."""

from __future__ import annotations

import argparse
from typing import Any

from hopkit.cli.numbers import integer, number
from hopkit.executors.choice import EXECUTORS, ExecutorChoice


def add_executor_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--executor", choices=EXECUTORS,
                        help="where questions are answered: threads of this process (default) or workers of a "
                             "Ray cluster (pip install 'hopkit[ray]'; docs/cluster.md)")
    parser.add_argument("--ray-address", help="the Ray cluster to join (auto, ray://HOST:10001, HOST:6379); "
                                              "default: start Ray on this machine")
    parser.add_argument("--workers", type=integer(), help="Ray workers answering at once (default: one per CPU of "
                                                          "the cluster)")
    parser.add_argument("--cpus-per-worker", type=number, help="CPUs Ray reserves per worker (default 1; less "
                                                               "when workers wait on a model server)")
    parser.add_argument("--question-timeout", type=number, metavar="SECONDS",
                        help="seconds a Ray worker may take on one question before it is taken for hung, killed "
                             "and replaced (default 1800)")
    parser.add_argument("--ray-env", metavar="PATTERNS",
                        help="the variables Ray workers get from this process, as names or patterns separated by "
                             "commas ('HOPKIT_*,OPENAI_BASE_URL'; 'none': none); default: every HOPKIT_*, OPENAI_* "
                             "and HF_* variable")


#: The config fields of the executor, each set by the command-line option of the same name.
FIELDS = ("executor", "ray_address", "workers", "cpus_per_worker", "question_timeout", "ray_env")


def executor_fields(args: argparse.Namespace) -> dict[str, Any]:
    """The config fields the command line's executor options set (over the config's own, before it is checked:
    ``--executor ray`` over a config's ``workers``)."""
    fields = {field: getattr(args, field) for field in FIELDS if getattr(args, field, None) is not None}
    if "ray_env" in fields:
        fields["ray_env"] = list(_patterns(fields["ray_env"]))
    return fields


def _patterns(forward: str) -> tuple[str, ...]:
    """``--ray-env``'s names or patterns separated by commas, or "none"."""
    words = [] if forward.strip().lower() == "none" else forward.replace(" ", ",").split(",")
    return tuple(word for word in words if word)


def chosen_executor(args: argparse.Namespace, config: Any) -> ExecutorChoice:
    """The command line's choice over the config's (``executor``, ``ray_address``, ``workers``, ``cpus_per_worker``).

    Raises:
        ConfigError: Ray options without the Ray executor, or a value out of range.
    """
    def pick(flag: str, field: str, default: Any) -> Any:
        value = getattr(args, flag, None)
        return value if value is not None else getattr(config, field, default)

    forward = pick("ray_env", "ray_env", None)
    if isinstance(forward, str):
        forward = _patterns(forward)
    forward = None if forward is None else tuple(forward)
    return ExecutorChoice(pick("executor", "executor", "threads"), pick("ray_address", "ray_address", None),
                          pick("workers", "workers", None), pick("cpus_per_worker", "cpus_per_worker", 1.0),
                          pick("question_timeout", "question_timeout", None), forward)
