"""MIGRES end to end with the real SmolLM2 GGUF through llama.cpp, on a tiny corpus.

Only checks that it finishes with a stored answer and a valid trace: a 135M model does
not follow MIGRES's formats well, which is the point (the unreadable outputs must still
end in an answer).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import pytest

from hopkit.llm.llama_cpp import LlamaCppLLM
from hopkit.llm.meter import MeteredLLM
from hopkit.methods.migres.method import MIGRES, MIGRESConfig
from hopkit.records import Corpus, Query
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.pipelines.runner import run_method
from hopkit.store.connection import DBConnection
from hopkit.store.records import RunSpec
from hopkit.store.store import Store
from hopkit.traces import KINDS, Trace
from tests import fictional_corpus

pytestmark = [pytest.mark.integration, pytest.mark.slow]

PARAGRAPHS = fictional_corpus.paragraphs(3)
QUERIES = (Query("q1", "Where was the founder of Velmora Ironworks born?", ("Tarsk",)),)


@pytest.fixture(scope="module")
def llm() -> Iterator[LlamaCppLLM]:
    model = LlamaCppLLM.load(n_ctx=2048, n_threads=1)
    yield model
    model.close()


def test_migres_finishes_with_an_answer_and_a_valid_trace(llm: LlamaCppLLM, tmp_path: Path) -> None:
    store = Store(DBConnection(f"sqlite:///{tmp_path / 'migres.db'}").get_session_factory())
    store.add_corpus(Corpus("toy", PARAGRAPHS, QUERIES))
    config = MIGRESConfig(max_iterations=2, hits_per_query=3, relevance_threshold=0.0, max_tokens=120)
    method = MIGRES(MeteredLLM(llm), BM25Retriever.build(PARAGRAPHS, k1=0.9, b=0.4), config)
    spec = RunSpec(name="migres-smollm2", method="migres", dataset="toy", config={"method": "migres"})
    outcome = run_method(method, QUERIES, store, spec, progress=False)

    assert (outcome.finished, outcome.failed) == (1, 0)
    [result] = store.results(outcome.run_id)
    assert result.ok and isinstance(result.prediction, str)
    json.dumps(result.trace, allow_nan=False)
    trace = Trace.from_result_trace(result.trace)
    assert trace.steps and {s.kind for s in trace.steps} <= set(KINDS)
    assert trace.steps[-1].kind == "read"
    assert set(result.chunk_ids) <= {p.id for p in PARAGRAPHS}
