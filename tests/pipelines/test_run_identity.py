from pathlib import Path

import pytest

from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.reader import ReaderConfig
from hopkit.pipelines.generation.one_step import OneRGenerationPipeline
from hopkit.pipelines.retrieval.bm25 import BM25RetrievalPipeline
from hopkit.records import Corpus, Paragraph, Query
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store

pytestmark = pytest.mark.unit


def test_every_option_of_the_run_enters_its_id(tmp_path: Path) -> None:
    factory = DBConnection(f"sqlite:///{tmp_path / 'db.sqlite'}").get_session_factory()
    Store(factory).add_corpus(Corpus("toy", (Paragraph(0, "T", "text"),), (Query(id="q", text="t?"),)))
    bm25 = BM25RetrievalPipeline(factory, index_root=tmp_path / "idx")

    def run_id(llm: ScriptedLLM, **options: object) -> str:
        return OneRGenerationPipeline(factory, "oner", llm, bm25, **options).run_spec().run_id

    base = run_id(ScriptedLLM([], context_length=8192))
    assert run_id(ScriptedLLM([], context_length=8192)) == base
    assert run_id(ScriptedLLM([], context_length=4096)) != base
    assert run_id(ScriptedLLM([], context_length=8192), k=7) != base
    assert run_id(ScriptedLLM([], context_length=8192), reader=ReaderConfig(mode="cot")) != base
    assert run_id(ScriptedLLM([], context_length=8192), batch_size=3) == base  # how, not what, is run
