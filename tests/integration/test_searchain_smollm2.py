"""SearChain end to end with the real SmolLM2 GGUF, a real BM25 index and a real SQLite store.

It checks only that the method finishes with a stored answer and a valid trace: a 135M
model writes poor chains, and what is measured is that SearChain survives them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hopkit.llm.llama_cpp import LlamaCppLLM
from hopkit.llm.meter import MeteredLLM
from hopkit.methods.searchain.method import SearChain, SearChainConfig
from hopkit.records import Corpus, Query
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.pipelines.runner import run_method
from hopkit.store.connection import DBConnection
from hopkit.store.records import RunSpec
from hopkit.store.store import Store
from hopkit.traces import KINDS, Trace
from tests import fictional_corpus

pytestmark = [pytest.mark.integration, pytest.mark.slow]

PARAGRAPHS = fictional_corpus.paragraphs(3, first_id=1)
QUESTION = Query("q1", "Where was the founder of Velmora Ironworks born?", ("Tarsk",))


def test_searchain_finishes_with_a_stored_answer_and_a_valid_trace(tmp_path: Path) -> None:
    store = Store(DBConnection(f"sqlite:///{tmp_path / 'searchain.db'}").get_session_factory())
    store.add_corpus(Corpus("toy", PARAGRAPHS, (QUESTION,)))
    llm = MeteredLLM(LlamaCppLLM.load(n_ctx=4096))
    method = SearChain(llm, BM25Retriever.build(PARAGRAPHS), SearChainConfig(max_rounds=2, chain_max_tokens=200))
    spec = RunSpec(name="searchain-smollm2", method="searchain", dataset="toy", config={"method": "searchain"})
    outcome = run_method(method, (QUESTION,), store, spec, progress=False)
    assert (outcome.finished, outcome.failed) == (1, 0)
    [result] = store.results(outcome.run_id)
    assert result.ok and result.prediction.strip()
    json.dumps(result.trace, allow_nan=False)
    trace = Trace.from_result_trace(result.trace)
    assert trace.steps and {step.kind for step in trace.steps} <= set(KINDS)
    assert trace.steps[0].kind == "reason" and trace.steps[-1].kind in {"read", "extract"}
    assert result.trace["rounds"] >= 1 and result.trace["stop_reason"] in {"finished", "max_rounds", "unreadable"}
