"""``hopkit index``: a dense index built ahead of a run, with progress, and its refusals in one line (issue 49).

The model is a random tiny BERT saved where the shipped ``minilm`` config looks first
(``$HOPKIT_MODEL_DIR/all-MiniLM-L6-v2``); nothing reaches the Hub.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.retrieval.sentence_models import save_sentence_model

from .running import hopkit

pytestmark = pytest.mark.unit
pytest.importorskip("sentence_transformers")


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import huggingface_hub.constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("HOPKIT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HOPKIT_MODEL_DIR", str(tmp_path / "models"))


def test_index_builds_a_dense_index_with_progress_then_finds_it(db: str, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    save_sentence_model(tmp_path / "models" / "all-MiniLM-L6-v2")
    assert hopkit(capsys, "--db", db, "ingest", "sample")[0] == 0
    code, out, err = hopkit(capsys, "--db", db, "index", "--retrieval", "minilm")
    assert code == 0 and "index minilm ready" in out, err
    assert "encoding (all-MiniLM-L6-v2)" in err and "passage/s" in err and "100%" in err
    (vectors,) = (tmp_path / "home" / "indexes").glob("vectors-*")
    assert (vectors / "vectors.npy").stat().st_size > 0
    code, out, err = hopkit(capsys, "--db", db, "index", "--retrieval", "minilm")
    assert code == 0 and "encoding" not in err  # loaded, not built again


def test_index_refusals_are_one_line_and_exit_2(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert hopkit(capsys, "--db", db, "ingest", "sample", "--limit", "2")[0] == 0
    config = tmp_path / "nosuch.yaml"
    config.write_text("_target_: hopkit.pipelines.retrieval.dense.DenseRetrievalPipeline\nname: nosuch\n"
                      "embedder: nobody/no-such-model\n", encoding="utf-8")
    code, _, err = hopkit(capsys, "--db", db, "index", "--retrieval", str(config))
    assert code == 2 and "cannot load the sentence-transformers model 'nobody/no-such-model'" in err
    assert f"{tmp_path / 'models' / 'no-such-model'}" in err
    code, _, err = hopkit(capsys, "--db", db, "index", "--retrieval", "bm25", "--executor", "ray")
    assert code == 2 and "is a BM25 index, built in this process" in err
    code, _, err = hopkit(capsys, "--db", db, "index", "--retrieval", "bm25", "--workers", "4")
    assert code == 2 and "apply to --executor ray" in err
    assert not list((tmp_path / "home" / "indexes").glob("vectors-*"))
