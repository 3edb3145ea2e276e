"""Sentence-transformers embedders as their model cards ask (issue 49, embedders).

The real all-MiniLM-L6-v2 is used when the model folder (``$HOPKIT_MODEL_DIR``) or
``~/.cache/local-models`` holds it (``../shared/tools/install-local-models.sh DEST embed``;
``scripts/test.sh`` puts it in the latter when that script is beside the clone);
the other cases use a random tiny BERT that the test saves as a sentence-transformers folder.
Nothing here reaches the Hub (``HF_HUB_OFFLINE=1``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hopkit import environment
from hopkit.errors import RetrievalError, UnknownNameError
from hopkit.pipelines.retrieval.dense import DenseRetrievalPipeline
from hopkit.records import Corpus, Paragraph, Query
from hopkit.retrieval.embedders import load_embedder
from hopkit.retrieval.sentence_embedders import (BGE_QUERY_INSTRUCTION, ModelCard, SentenceTransformerEmbedder,
                                                  model_card)
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store
from tests.retrieval.sentence_models import save_sentence_model

pytestmark = pytest.mark.unit

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")
sentence_transformers = pytest.importorskip("sentence_transformers")

# Where ../shared/tools/install-local-models.sh puts models by default (scripts/test.sh runs it).
LOCAL_MODELS = Path("~/.cache/local-models").expanduser()


def minilm_folder() -> Path | None:
    """The model folder holding the real all-MiniLM-L6-v2, if any."""
    for folder in (environment.model_dir(), LOCAL_MODELS):
        if (folder / "all-MiniLM-L6-v2" / "modules.json").is_file():
            return folder
    return None


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No request to the Hub (huggingface_hub reads the variable once, when imported: set its constant too)."""
    import huggingface_hub.constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)


def save_tiny_sentence_model(folder: Path) -> Path:
    """A random tiny BERT with mean pooling, saved as a sentence-transformers folder."""
    return save_sentence_model(folder)


def test_the_model_cards_prefixes() -> None:
    assert model_card("intfloat/e5-base-v2") == ModelCard("query: ", "passage: ")
    assert model_card("intfloat/multilingual-e5-large") == ModelCard("query: ", "passage: ")
    assert model_card("BAAI/bge-small-en-v1.5") == ModelCard(BGE_QUERY_INSTRUCTION, "")
    assert model_card("sentence-transformers/all-MiniLM-L6-v2") == ModelCard()


def test_queries_and_passages_get_the_prefixes_of_the_card(tmp_path: Path) -> None:
    folder = save_tiny_sentence_model(tmp_path / "e5-tiny")  # an E5-named model: "query: " / "passage: "
    embedder = load_embedder(f"sentence-transformers:{folder}")
    assert embedder.model_id.endswith("[query_prefix='query: ',passage_prefix='passage: ']")
    assert isinstance(embedder, SentenceTransformerEmbedder)
    question, passage = "where was ada quill born", "ada quill was born in tarsk"
    np.testing.assert_allclose(embedder.embed_queries([question]), embedder.model.encode([f"query: {question}"]),
                               atol=1e-6)
    np.testing.assert_allclose(embedder.embed_passages([passage]),
                               embedder.model.encode([f"passage: {passage}"]), atol=1e-6)
    model = embedder.model
    assert str(model.device) == "cpu"  # no GPU here: every core of the CPU


def test_a_copy_in_the_model_folder_is_used_before_the_hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save_tiny_sentence_model(tmp_path / "models" / "all-MiniLM-L6-v2")
    monkeypatch.setenv("HOPKIT_MODEL_DIR", str(tmp_path / "models"))
    embedder = load_embedder("minilm")
    assert embedder.model_id == "sentence-transformers:sentence-transformers/all-MiniLM-L6-v2"
    assert embedder.embed(["the orl is a river"]).shape == (1, 16)


def test_a_model_that_cannot_be_had_is_named_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOPKIT_MODEL_DIR", str(tmp_path))
    with pytest.raises(RetrievalError, match=r"cannot load the sentence-transformers model 'nobody/no-such-model'.*"
                                             rf"{tmp_path}/no-such-model"):
        load_embedder("nobody/no-such-model")
    with pytest.raises(UnknownNameError, match="unknown embedder 'e6-base'; known: .*e5-base-v2"):
        load_embedder("e6-base")


def test_dense_retrieval_with_the_real_minilm_finds_the_paraphrased_paragraph(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    models = minilm_folder()
    if models is None:
        pytest.skip(f"no all-MiniLM-L6-v2 in {environment.model_dir()} or {LOCAL_MODELS} "
                    "(../shared/tools/install-local-models.sh DEST embed)")
    monkeypatch.setenv("HOPKIT_MODEL_DIR", str(models))
    paragraphs = (Paragraph(1, "Ada Quill", "Ada Quill was an engineer who came into the world in Tarsk."),
                  Paragraph(2, "Orl", "The Orl is a river that runs past the port city."),
                  Paragraph(3, "Velmora", "Velmora Ironworks made bridges and rails."))
    factory = DBConnection(f"sqlite:///{tmp_path / 'hopkit.db'}").get_session_factory()
    Store(factory).add_corpus(Corpus("toy", paragraphs, (Query("q", "Where was Ada Quill born?"),)))
    retrieval = DenseRetrievalPipeline(factory, index_root=tmp_path / "indexes", embedder="minilm")
    hits = retrieval.retriever("toy").retrieve("What is the birthplace of Ada Quill?", k=2)
    assert [hit.id for hit in hits][0] == 1
    assert 0.0 < hits[1].score < hits[0].score <= 1.0
