"""Passage encoding spread over a Ray cluster: one task per shard, the driver writing each shard once.

Each task reads its shard's paragraphs from the store, encodes them with the model (loaded once
per worker process and kept) and returns the float16 rows; the driver writes them into the
vector file as they come (:class:`hopkit.retrieval.vector_build.VectorBuild`). A worker that
dies mid-shard is replaced and its shard encoded again by Ray (``max_retries``); a shard's
rows reach the file once, from the one task that returned them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from hopkit.executors.choice import ExecutorChoice
from hopkit.executors.ray_cluster import alive_nodes, connect, forwarded_environment, joined_notice
from hopkit.retrieval.dense_store import ShardEncoder
from hopkit.retrieval.embedders import Embedder, load_embedder
from hopkit.retrieval.stored_view import ParagraphSource
from hopkit.retrieval.vector_build import Shard, encode_passages, first_id_before, shard_paragraphs
from hopkit.store.connection import DBConnection, mask_url

log = logging.getLogger(__name__)

RETRIES = 3
_MODELS: dict[str, Embedder] = {}  # a worker process keeps its model between shards


def _encode_shard(database_url: str, dataset: str, embedder_spec: str, batch_size: int, shard: Shard,
                  shard_ids: np.ndarray, after: int | None) -> tuple[Shard, np.ndarray]:
    """One shard's vectors, in a Ray worker."""
    from hopkit.store.stored_corpus import StoredCorpus

    embedder = _MODELS.get(embedder_spec)
    if embedder is None:
        embedder = _MODELS[embedder_spec] = load_embedder(embedder_spec)
    source = StoredCorpus(DBConnection(database_url).get_session_factory(), dataset)
    return shard, encode_passages(embedder, shard_paragraphs(source, shard, shard_ids, after), batch_size)


def task_resources(cluster: dict[str, float]) -> tuple[dict[str, float], int]:
    """What one shard task reserves, and how many fit: a GPU each where the cluster has GPUs, else a CPU
    each (Ray then gives the task's model one thread, so the tasks share the cores without contention)."""
    gpus = int(cluster.get("GPU", 0))
    if gpus:
        return {"num_gpus": 1, "num_cpus": 1}, gpus
    return {"num_cpus": 1}, max(1, int(cluster.get("CPU", 1)))


def ray_shard_encoder(choice: ExecutorChoice, database_url: str, dataset: str, embedder_spec: str) -> ShardEncoder:
    """A :data:`~hopkit.retrieval.dense_store.ShardEncoder` whose shards are Ray tasks.

    Args:
        choice: the cluster (``address``; None starts one on this machine), ``workers`` (tasks at
            once; default one per CPU, or per GPU when the cluster has GPUs), ``forward_env``.
        database_url: the store the workers read the paragraphs from (PostgreSQL across machines).
        dataset: the dataset whose corpus is encoded.
        embedder_spec: the model as :func:`~hopkit.retrieval.embedders.load_embedder` takes it.
    """

    def encode(source: ParagraphSource, ids: np.ndarray, embedder: Embedder, batch_size: int,
               pending: Iterable[Shard]) -> Iterator[tuple[Shard, np.ndarray]]:
        ray = connect(choice.address)
        variables = forwarded_environment(choice.forward_env)
        if choice.address is not None:
            log.warning(joined_notice(ray, choice.address, [name for name in variables if name != "PYTHONPATH"],
                                mask_url(database_url)))
        resources, slots = task_resources(ray.cluster_resources())
        workers = choice.workers or slots
        if database_url.startswith("sqlite") and alive_nodes(ray) > 1:
            log.warning("the store is a SQLite file: workers on other machines cannot read it (use PostgreSQL)")
        task = ray.remote(_encode_shard).options(max_retries=RETRIES, retry_exceptions=False,
                                                 runtime_env={"env_vars": variables}, **resources)
        log.info("encoding shards on %d Ray worker(s) (%s each)", workers, resources)
        queue = list(pending)
        running: list[Any] = []
        while queue or running:
            while queue and len(running) < workers:
                shard = queue.pop(0)
                running.append(task.remote(database_url, dataset, embedder_spec, batch_size, shard,
                                           ids[shard.start:shard.stop], first_id_before(ids, shard)))
            done, running = ray.wait(running, num_returns=1)
            yield ray.get(done[0])

    return encode
