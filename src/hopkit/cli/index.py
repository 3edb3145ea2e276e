"""``hopkit index``: build a retrieval index for a stored dataset, with progress, in this process or on Ray."""

from __future__ import annotations

import argparse

from hopkit.cli.numbers import integer
from hopkit.cli.store_access import existing_connection
from hopkit.config import load_named
from hopkit.errors import ConfigError
from hopkit.executors.choice import EXECUTORS
from hopkit.pipelines.retrieval.base import RetrievalPipeline, resolve_dataset
from hopkit.store.store import Store


def add_arguments(index: argparse.ArgumentParser) -> None:
    index.add_argument("--dataset", help="stored dataset (default: the only one)")
    index.add_argument("--retrieval", default="bm25", help="retrieval config name (default bm25)")
    index.add_argument("--executor", choices=EXECUTORS, default="threads",
                       help="where a dense index's passages are encoded: this process (default) or the tasks of a "
                            "Ray cluster, one shard each (pip install 'hopkit[ray]'; docs/cluster.md)")
    index.add_argument("--ray-address", help="the Ray cluster to join (auto, ray://HOST:10001); default: start Ray "
                                             "on this machine")
    index.add_argument("--workers", type=integer(), help="shards encoded at once on Ray (default: one per GPU of the "
                                                         "cluster, else one per CPU)")
    index.add_argument("--ray-env", metavar="PATTERNS", help="the variables Ray workers get, as for hopkit run")
    index.add_argument("--quiet", action="store_true", help="no progress bar")


def cmd_index(args: argparse.Namespace) -> int:
    connection = existing_connection(args)
    factory = connection.get_session_factory()
    pipeline = load_named("retrieval", args.retrieval, session_factory=factory)
    if not isinstance(pipeline, RetrievalPipeline):
        raise ConfigError(f"retrieval config {args.retrieval!r} does not build a retrieval pipeline")
    encoder = None
    if args.executor == "ray":
        if "embedder" not in pipeline.options:
            raise ConfigError(f"--executor ray spreads the encoding of a dense index's passages; {args.retrieval!r} "
                              "is a BM25 index, built in this process: leave --executor out")
        from hopkit.cli.executor import chosen_executor
        from hopkit.executors.ray_encoding import ray_shard_encoder

        choice = chosen_executor(args, None)
        dataset = resolve_dataset(Store(factory), args.dataset or pipeline.dataset)
        encoder = ray_shard_encoder(choice, connection.url, dataset, str(pipeline.options["embedder"]))
    elif args.ray_address is not None or args.workers is not None or args.ray_env is not None:
        raise ConfigError("--ray-address, --workers and --ray-env apply to --executor ray")
    pipeline.retriever(args.dataset, progress=not args.quiet, encoder=encoder)
    print(f"index {args.retrieval} ready")
    return 0
