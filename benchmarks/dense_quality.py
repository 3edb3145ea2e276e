"""Dense retrieval on the samples: paragraph recall of BM25, MiniLM and hybrid, IVF-PQ and HNSW against
exact search, and the real MiniLM's encoding speed on 1 and 2 cores.

For each sample's pooled corpus (all its questions, the question text as the query):

1. paragraph recall@5 and @15 (the share of a question's gold paragraphs in the top k) of the
   shipped retrieval configs ``bm25``, ``minilm`` and ``hybrid-minilm``;
2. recall@15 of the exact top 15 (``minilm`` with ``index: flat``) by ``ivfpq`` and ``hnsw`` with
   their default settings (re-scoring included);
3. passages per second of the real all-MiniLM-L6-v2 (``$HOPKIT_MODEL_DIR``) encoding the HotpotQA
   sample's 982 passages (title and text), with torch on 1 and on 2 threads.

No rerank row: a real cross-encoder's weights cannot be had on the benchmark machine.

    HOPKIT_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.dense_quality

Writes benchmarks/results/dense_quality.json and the ``dense-quality`` section of docs/benchmarks.md;
the store and indexes go to ``--work`` (default /tmp/hopkit-dense-quality).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from hopkit.campaign.page_sections import command_line, markdown_table, write_section
from hopkit.campaign.environment import RESULTS as RESULTS_DIR
from hopkit.config import load_named
from hopkit.data.corpus import pool_corpus
from hopkit.data.registry import load_dataset, sample_path
from hopkit.pipelines.retrieval.dense import DenseRetrievalPipeline
from hopkit.retrieval.corpus_view import passage_text
from hopkit.retrieval.ann import IVFPQ_RESCORE, MIN_NPROBE, RESCORE
from hopkit.retrieval.embedders import load_embedder, embed_passages
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store

RESULTS = RESULTS_DIR / "dense_quality.json"
RETRIEVERS = ("bm25", "minilm", "hybrid-minilm")
APPROXIMATE = ("ivfpq", "hnsw")
DATASETS = ("hotpotqa", "2wikimultihopqa", "musique", "strategyqa")


def recall(found: list[int], gold: tuple[int, ...]) -> float:
    return len(set(found) & set(gold)) / len(gold)


def sample_quality(factory: Any, store: Store, dataset: str, indexes: Path) -> dict[str, Any]:
    queries = [q for q in store.queries(dataset) if q.gold_paragraph_ids]
    result: dict[str, Any] = {"questions": len(queries), "paragraphs": len(store.corpus(dataset))}
    for name in RETRIEVERS:
        retriever = load_named("retrieval", name, session_factory=factory, index_root=str(indexes)).retriever(dataset)
        hits = [[hit.id for hit in retriever.retrieve(q.text, 15)] for q in queries]
        result[name] = {f"recall@{k}": float(np.mean([recall(h[:k], q.gold_paragraph_ids) for h, q in
                                                      zip(hits, queries)])) for k in (5, 15)}
    exact = DenseRetrievalPipeline(factory, embedder="minilm", index="flat", index_root=indexes).retriever(dataset)
    truth = [exact.retrieve(q.text, 15) for q in queries]
    for kind in APPROXIMATE:
        approximate = DenseRetrievalPipeline(factory, embedder="minilm", index=kind,  # type: ignore[arg-type]
                                             index_root=indexes).retriever(dataset)
        found = [approximate.retrieve(q.text, 15) for q in queries]
        # a hit counts when it scores at least the exact 15th score (ties at that score are equally right)
        result[kind] = {"recall_of_exact@15": float(np.mean([
            sum(hit.score >= exact_hits[-1].score - 1e-4 for hit in hits) / len(exact_hits)
            for hits, exact_hits in zip(found, truth) if exact_hits]))}
    return result


def encoding_speed(store: Store, dataset: str) -> dict[str, float]:
    import torch

    texts = [passage_text(p) for batch in store.corpus(dataset).batches(10_000) for p in batch]
    embedder = load_embedder("minilm")
    speeds = {}
    for threads in (1, 2):
        torch.set_num_threads(threads)
        embed_passages(embedder, texts[:64])  # warm-up
        start = time.perf_counter()
        embed_passages(embedder, texts)
        speeds[f"{threads} thread(s)"] = len(texts) / (time.perf_counter() - start)
    return speeds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/hopkit-dense-quality"))
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--report-only", action="store_true", help="rewrite the section from the saved results")
    args = parser.parse_args()
    if args.report_only:
        write_section("dense-quality", section(json.loads(RESULTS.read_text(encoding="utf-8"))))
        return
    args.work.mkdir(parents=True, exist_ok=True)
    factory = DBConnection(f"sqlite:///{args.work / 'hopkit.db'}").get_session_factory()
    store = Store(factory)
    saved: dict[str, Any] = {"command": command_line(), "cores": os.cpu_count(), "samples": {}}
    for dataset in args.datasets:
        if dataset not in store.datasets():
            store.add_corpus(pool_corpus(dataset, load_dataset(dataset, sample_path(dataset))))
        saved["samples"][dataset] = sample_quality(factory, store, dataset, args.work / "indexes")
        print(dataset, json.dumps(saved["samples"][dataset]))
    saved["encoding"] = {"dataset": args.datasets[0], "passages": len(store.corpus(args.datasets[0])),
                         "passages_per_second": encoding_speed(store, args.datasets[0])}
    print(json.dumps(saved["encoding"]))
    RESULTS.write_text(json.dumps(saved, indent=2) + "\n", encoding="utf-8")
    write_section("dense-quality", section(saved))


def section(saved: dict[str, Any]) -> str:
    rows = []
    for dataset, result in saved["samples"].items():
        cells = [f"{result[name][f'recall@{k}']:.3f}" for name in RETRIEVERS for k in (5, 15)]
        cells += [f"{result[kind]['recall_of_exact@15']:.3f}" for kind in APPROXIMATE]
        rows.append(f"| {dataset} | {result['questions']} | {result['paragraphs']} | " + " | ".join(cells) + " |")
    header = ["sample", "questions", "paragraphs", *[f"{name} R@{k}" for name in RETRIEVERS for k in (5, 15)],
              *[f"{kind} R@15 of exact" for kind in APPROXIMATE]]
    speeds = saved["encoding"]["passages_per_second"]
    return "\n\n".join([
        "## Dense retrieval on the samples: recall, approximation, encoding speed (`benchmarks/dense_quality.py`)",
        f"Command: `{saved['command']}`  \nMachine: {saved['cores']} cores, no GPU.",
        "Paragraph recall@k: the share of a question's gold paragraphs among the k retrieved, the question "
        "as the query, over each sample's pooled corpus (every question with gold paragraphs). `minilm` is "
        "sentence-transformers/all-MiniLM-L6-v2, exact search (these corpora are far below 200,000 passages); "
        "`hybrid-minilm` fuses it with BM25 by reciprocal rank fusion (k = 60). The last two columns: the share "
        f"of the exact top 15 (MiniLM) that IVF-PQ and HNSW find with their default settings: IVF-PQ searches a "
        f"quarter of its lists and at least {MIN_NPROBE} (on corpora this small, every list) and re-scores "
        f"{IVFPQ_RESCORE:,} candidates exactly, HNSW re-scores {RESCORE} (a hit scoring at least the exact 15th "
        f"score counts). No rerank row: no real cross-encoder's weights can be had on this machine.",
        markdown_table(header, rows),
        f"Encoding speed of the real all-MiniLM-L6-v2 on the {saved['encoding']['dataset']} sample's "
        f"{saved['encoding']['passages']} passages (title and text, batches of 32): "
        + ", ".join(f"{speed:.0f} passages/s on {threads}" for threads, speed in speeds.items()) + ".",
    ])


if __name__ == "__main__":
    main()
