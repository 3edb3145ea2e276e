"""The cross-encoder rerank stage over any first-stage retriever (issue 49), with a random tiny cross-encoder
the test saves (no real reranker's weights can be had on the test machines)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hopkit.errors import RetrievalError
from hopkit.judges.cross_encoder import CrossEncoderRelevance
from hopkit.pipelines.retrieval.bm25 import BM25RetrievalPipeline
from hopkit.pipelines.retrieval.reranker import load_cross_encoder
from hopkit.records import Corpus, Paragraph, Query
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.retrieval.corpus_view import passage_text
from hopkit.retrieval.rerank import RerankedRetriever
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store

pytestmark = pytest.mark.unit
transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")
pytest.importorskip("sentence_transformers")

WORDS = "the a of is was in capital city largest france paris berlin germany river town market wool".split()
PARAGRAPHS = [Paragraph(i, f"Town {i}", text) for i, text in enumerate([
    "paris is the capital of france", "berlin is the capital of germany", "the market town sells wool",
    "the river town of berlin", "the largest city of france is paris", "a capital city on the river"])]


def save_tiny_cross_encoder(folder: Path) -> Path:
    folder.mkdir(parents=True)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    settings = transformers.BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=2, num_labels=1,
                                       num_attention_heads=2, intermediate_size=32, max_position_embeddings=128)
    torch.manual_seed(1)
    transformers.BertForSequenceClassification(settings).save_pretrained(folder)
    transformers.AutoTokenizer.from_pretrained(folder).save_pretrained(folder)
    return folder


def test_the_first_stage_best_are_ordered_by_the_cross_encoder(tmp_path: Path) -> None:
    folder = save_tiny_cross_encoder(tmp_path / "reranker")
    first = BM25Retriever.build(PARAGRAPHS)
    scorer = CrossEncoderRelevance.load(str(folder), device="cpu")
    reranked = RerankedRetriever(first, scorer, depth=4)
    query = "capital city of france"
    candidates = first.retrieve(query, 4)
    scores = scorer.relevance(query, [passage_text(hit.paragraph) for hit in candidates])
    expected = [hit.id for _, hit in sorted(zip(scores, candidates), key=lambda pair: -pair[0])]
    hits = reranked.retrieve(query, 3)
    assert [hit.id for hit in hits] == expected[:3]
    assert [hit.score for hit in hits] == pytest.approx(sorted(scores, reverse=True)[:3])
    assert {hit.id for hit in reranked.retrieve(query, 3, exclude={expected[0]})}.isdisjoint({expected[0]})
    assert reranked.retrieve(query, 0) == []
    with pytest.raises(RetrievalError, match="rerank depth"):
        RerankedRetriever(first, scorer, depth=0)


def test_a_pipeline_reranks_with_a_model_found_in_the_model_folder(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    save_tiny_cross_encoder(tmp_path / "models" / "ms-marco-MiniLM-L-6-v2")
    monkeypatch.setenv("HOPKIT_MODEL_DIR", str(tmp_path / "models"))
    factory = DBConnection(f"sqlite:///{tmp_path / 'db.sqlite'}").get_session_factory()
    Store(factory).add_corpus(Corpus("toy", tuple(PARAGRAPHS), (Query(id="q", text="Where is Paris?"),)))
    plain = BM25RetrievalPipeline(factory, index_root=tmp_path / "indexes")
    reranked = BM25RetrievalPipeline(factory, index_root=tmp_path / "indexes",
                                     rerank="cross-encoder/ms-marco-MiniLM-L-6-v2", rerank_depth=5)
    assert "rerank" not in plain.spec("toy")
    assert reranked.spec("toy")["rerank"] == {"model": "cross-encoder/ms-marco-MiniLM-L-6-v2", "depth": 5}
    hits = reranked.retriever("toy").retrieve("capital of france", 3)
    assert {hit.id for hit in hits} <= {hit.id for hit in plain.retriever("toy").retrieve("capital of france", 5)}


def test_a_reranker_that_cannot_be_had_is_named_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub.constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("HOPKIT_MODEL_DIR", str(tmp_path))
    with pytest.raises(RetrievalError, match=r"cannot load the cross-encoder 'nobody/no-reranker'.*"
                                             rf"{tmp_path}/no-reranker"):
        load_cross_encoder("nobody/no-reranker")
