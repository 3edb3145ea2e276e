"""The IRCoT documentation page's Python example, run as written (import paths aside).

``ChatOpenAI`` talks to a scripted OpenAI-compatible server on 127.0.0.1; the store is
a real SQLite file and the retriever the real BM25 index.
"""

from pathlib import Path

import pytest

from hopkit.llm.testing_server import serve_fake_openai
from hopkit.records import Corpus, Paragraph, Query
from hopkit.store.connection import DBConnection as StoreConnection
from hopkit.store.store import Store

pytestmark = pytest.mark.unit

PARAGRAPHS = (
    Paragraph(0, "Velmora Ironworks", "Velmora Ironworks is a foundry founded by Osric Pellander in 1871."),
    Paragraph(1, "Osric Pellander", "Osric Pellander was an engineer born in the town of Caddow Cross."),
    Paragraph(2, "Caddow Cross", "Caddow Cross is a market town on the Orl River."),
    Paragraph(3, "Halvicke Glassworks", "Halvicke Glassworks was founded in Tarsk by Maren Tolloway."),
)
QUERIES = (
    Query(id="q1", text="In which town was the founder of Velmora Ironworks born?", answers=("Caddow Cross",),
          gold_paragraph_ids=(0, 1)),
    Query(id="q2", text="Who founded Halvicke Glassworks?", answers=("Maren Tolloway",), gold_paragraph_ids=(3,)),
)


def scripted_model(prompt: str) -> str:
    """A model that reasons one fact per step and answers once it has read both."""
    if "Answer concisely" in prompt:
        return "Caddow Cross"
    if "founded by Osric Pellander" not in prompt.split("Previous reasoning:")[-1]:
        return "Velmora Ironworks was founded by Osric Pellander. He was an engineer."
    return "Osric Pellander was born in Caddow Cross, so the answer is: Caddow Cross."


@pytest.fixture()
def documented_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("HOPKIT_DB_URL", f"sqlite:///{tmp_path / 'hopkit.db'}")
    monkeypatch.setenv("HOPKIT_HOME", str(tmp_path / "home"))
    Store(StoreConnection.from_config().get_session_factory()).add_corpus(Corpus("toy", PARAGRAPHS, QUERIES))
    with serve_fake_openai(scripted_model) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        yield server


def test_the_documented_python_example_runs_as_written(documented_environment) -> None:
    from langchain_openai import ChatOpenAI

    from hopkit.pipelines.generation.ircot import IRCoTGenerationPipeline
    from hopkit.pipelines.retrieval.bm25 import BM25RetrievalPipeline
    from hopkit.store.connection import DBConnection

    db = DBConnection.from_config()
    session_factory = db.get_session_factory()

    # Create retrieval pipeline
    retrieval = BM25RetrievalPipeline(
        session_factory=session_factory,
        name="bm25_retriever",
    )

    # Create IRCoT pipeline
    pipeline = IRCoTGenerationPipeline(
        session_factory=session_factory,
        name="ircot_gpt4",
        llm=ChatOpenAI(model="gpt-4o-mini"),
        retrieval_pipeline=retrieval,
        k_per_step=4,
        max_steps=8,
        paragraph_budget=15,
    )

    # Run on all queries
    results = pipeline.run(top_k=4)
    assert results["total_queries"] == 2 and results["finished"] == 2

    result = pipeline._generate("In which town was the founder of Velmora Ironworks born?", top_k=4)
    assert result.text == "Caddow Cross"
    assert result.metadata["steps"] == 2
    assert result.metadata["cot_sentences"] == [
        "Velmora Ironworks was founded by Osric Pellander.",
        "Osric Pellander was born in Caddow Cross, so the answer is: Caddow Cross.",
    ]
    assert set(result.metadata["chunk_ids"]) >= {0, 1}
    assert all(isinstance(i, int) for i in result.metadata["chunk_ids"])

    # the run is stored and a second run resumes without asking the model again
    asked = len(documented_environment.requests)
    again = pipeline.run(top_k=4)
    assert again["already_done"] == 2 and len(documented_environment.requests) == asked
    stored = Store(session_factory).results(results["run_id"])
    assert {r.query_id for r in stored} == {"q1", "q2"} and all(r.usage.llm_calls >= 2 for r in stored)


def test_top_k_is_an_alias_that_takes_effect(documented_environment) -> None:
    from langchain_openai import ChatOpenAI

    from hopkit.pipelines.generation.ircot import IRCoTGenerationPipeline
    from hopkit.pipelines.retrieval.bm25 import BM25RetrievalPipeline
    from hopkit.store.connection import DBConnection

    session_factory = DBConnection.from_config().get_session_factory()
    pipeline = IRCoTGenerationPipeline(session_factory=session_factory, name="ircot", llm=ChatOpenAI(model="m"),
                                       retrieval_pipeline=BM25RetrievalPipeline(session_factory=session_factory),
                                       k_per_step=4)
    one = pipeline._generate("Who founded Halvicke Glassworks?", top_k=1)
    assert one.metadata["queries"] and len(one.metadata["chunk_ids"]) <= one.metadata["steps"] + 1
    assert pipeline.run_spec(top_k=1).run_id != pipeline.run_spec(top_k=4).run_id


def test_the_readme_python_example_runs_as_printed(documented_environment) -> None:
    """The README's IRCoT example (with `limit=`), read from the README and run as it is printed."""
    import contextlib
    import io
    import re

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    [example] = [b for b in re.findall(r"```python\n(.*?)```", readme, flags=re.DOTALL)
                 if "IRCoTGenerationPipeline(" in b]
    assert "limit=" in example
    namespace: dict = {}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(example, "README.md", "exec"), namespace)  # the README's own code, never model output
    assert namespace["results"]["total_queries"] == 2 and namespace["results"]["finished"] == 2
    assert printed.getvalue().startswith("Processed 2 queries\n")
    assert namespace["result"].text == "Caddow Cross"
