"""``hopkit quickstart``: the bundled fictional sample, BM25, and NoR / OneR / IRCoT with one LLM."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from hopkit.config import load_llm
from hopkit.data.corpus import pool_corpus
from hopkit.data.registry import BUNDLED, load_dataset
from hopkit.evaluation.aggregate import RunSummary
from hopkit.methods.reader import ReaderConfig
from hopkit.pipelines.base import GenerationPipeline
from hopkit.pipelines.generation.ircot import IRCoTGenerationPipeline
from hopkit.pipelines.generation.no_retrieval import NoRGenerationPipeline
from hopkit.pipelines.generation.one_step import OneRGenerationPipeline
from hopkit.pipelines.retrieval.bm25 import BM25RetrievalPipeline
from hopkit.scoring_runs import score_runs
from hopkit.store.store import Store

SAMPLE_PATH = BUNDLED["sample"][1]
DATASET = "quickstart"


def ingest_sample(store: Store) -> None:
    """Store the bundled sample as dataset ``quickstart`` unless the same content is there."""
    corpus = pool_corpus(DATASET, load_dataset("jsonl", SAMPLE_PATH))
    if DATASET in store.datasets():
        stored = store.queries(DATASET)
        if [q.id for q in stored] == [q.id for q in corpus.queries] and \
                len(store.paragraphs(DATASET)) == len(corpus.paragraphs):
            return
        store.add_corpus(corpus, replace=True)
        return
    store.add_corpus(corpus)


def quickstart_pipelines(session_factory: sessionmaker[Session], llm: Any) -> list[GenerationPipeline]:
    """NoR, OneR and IRCoT on the sample, all with the same LLM and BM25."""
    bm25 = BM25RetrievalPipeline(session_factory, name="bm25", dataset=DATASET)
    direct = ReaderConfig(mode="direct", max_tokens=32)
    pipelines: list[GenerationPipeline] = [
        NoRGenerationPipeline(session_factory, "quickstart-nor", llm, reader=direct, dataset=DATASET),
        OneRGenerationPipeline(session_factory, "quickstart-oner", llm, bm25, k=5, reader=direct, dataset=DATASET),
        IRCoTGenerationPipeline(session_factory, "quickstart-ircot", llm, bm25, k_per_step=4, max_steps=4,
                                paragraph_budget=15, dataset=DATASET, reader="direct", reader_max_tokens=32,
                                generation_max_tokens=64),
    ]
    return pipelines


def run_quickstart(session_factory: sessionmaker[Session], *, llm: str = "smollm2",
                   limit: int | None = None) -> list[RunSummary]:
    """Ingest the sample, run every quickstart pipeline (resuming finished ones), score them.

    Args:
        session_factory: the store's session factory.
        llm: an LLM config name, or a GGUF file on the Hub (``hf://OWNER/NAME/FILE.gguf``,
            downloaded on first use; see :func:`hopkit.config.load_llm`).
        limit: only the first ``limit`` questions (None: all 24).

    Returns:
        The runs' summaries: NoR, OneR, IRCoT.

    Raises:
        HopkitError: the LLM cannot be loaded (unknown name, download failed...).
    """
    store = Store(session_factory)
    ingest_sample(store)
    model = load_llm(llm)
    run_ids = [pipeline.run(limit=limit)["run_id"] for pipeline in quickstart_pipelines(session_factory, model)]
    return score_runs(store, [store.find_runs(run_id)[0] for run_id in run_ids])
