"""``hopkit run --retrieval NAME`` and ``hopkit sweep --retrieval NAME`` (issue 49: every method on any
retriever by config name, the run id following the retriever). Real store, real BM25 and dense indexes;
the model is the scripted LLM config."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hopkit.store.store import Store

from .running import hopkit

pytestmark = pytest.mark.unit


@pytest.fixture()
def scripted(tmp_path: Path) -> str:
    llm = tmp_path / "scripted.yaml"
    llm.write_text("_target_: hopkit.llm.fake.ScriptedLLM\nscript: [Velmora, Osric, Tarn, Velmora, Osric, Tarn]\n",
                   encoding="utf-8")
    return str(llm)


def test_run_takes_a_retriever_by_name_and_its_run_id_follows(db: str, scripted: str, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "configs" / "retrieval").mkdir(parents=True)
    (tmp_path / "configs" / "retrieval" / "hashing.yaml").write_text(
        "_target_: hopkit.pipelines.retrieval.dense.DenseRetrievalPipeline\nname: hashing\nembedder: hashing:64\n",
        encoding="utf-8")
    assert hopkit(capsys, "--db", db, "ingest", "sample", "--limit", "2")[0] == 0
    ids = []
    for retrieval in ("bm25", "hashing"):
        code, out, err = hopkit(capsys, "--db", db, "run", "oner", "--llm", scripted, "--retrieval", retrieval,
                                "--quiet")
        assert code == 0, err
        ids.append(re.search(r"run oner \((\w+)\)", out).group(1))  # type: ignore[union-attr]
    assert ids[0] != ids[1]
    store = Store.connect(db)
    assert [store.run(run_id).config["retrieval"]["kind"] for run_id in ids] == ["bm25", "dense"]


def test_a_method_that_does_not_retrieve_refuses_the_option(db: str, scripted: str,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert hopkit(capsys, "--db", db, "ingest", "sample", "--limit", "2")[0] == 0
    code, _, err = hopkit(capsys, "--db", db, "run", "nor", "--llm", scripted, "--retrieval", "bm25")
    assert code == 2 and "--retrieval bm25:" in err and "does not retrieve" in err
    code, _, err = hopkit(capsys, "--db", db, "run", "oner", "--llm", scripted, "--retrieval", "nosuch")
    assert code == 2 and "unknown retrieval config 'nosuch'; known: " in err and "minilm" in err


def test_sweep_puts_every_retrieving_method_on_the_retriever(db: str, scripted: str,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert hopkit(capsys, "--db", db, "ingest", "sample", "--limit", "2")[0] == 0
    code, _, err = hopkit(capsys, "--db", db, "sweep", "nor", "oner", "--datasets", "sample", "--llm", scripted,
                          "--retrieval", "bm25-migres", "--quiet")
    assert code == 0, err
    kinds = {run.method: run.config.get("retrieval", {}).get("options") for run in Store.connect(db).runs()}
    assert kinds == {"nor": None, "oner": {"b": 0.4, "k1": 0.9}}


def test_a_sweep_in_which_no_method_retrieves_refuses_the_option(db: str, scripted: str,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """One rule for every command: NoR runs without ``--retrieval``; a command it changes nothing in refuses it."""
    assert hopkit(capsys, "--db", db, "ingest", "sample", "--limit", "2")[0] == 0
    code, out, err = hopkit(capsys, "--db", db, "sweep", "nor", "--datasets", "sample", "--llm", scripted,
                            "--retrieval", "bm25", "--quiet")
    assert code == 2 and "--retrieval bm25: the sweep runs a method that does not retrieve" in err
    assert Store.connect(db).runs() == []
