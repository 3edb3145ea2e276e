"""Issue 72's walk from an empty folder, with a FAISS index of one's own named by ``index_path:``.

``$WIKI`` is a wiki-18 JSONL file, ``$QS`` a FlashRAG dev file, ``$IDX`` a Flat index of the real
all-MiniLM-L6-v2's vectors of ``$WIKI``'s passages in file order (:mod:`tests.retrieval.prebuilt_fixtures`);
the store is the default one (``$HOPKIT_HOME``), the retriever configs come from ``configs/retrieval/`` of the
working folder as a user writes them. The unit test answers with a scripted model; the integration test runs
the walk as written, on the embedded SmolLM2.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hopkit.store import Store
from tests.retrieval.prebuilt_fixtures import minilm_or_skip, wiki_and_vectors, write_index

from .running import hopkit

pytest.importorskip("faiss")
pytest.importorskip("sentence_transformers")

QUESTIONS = [{"id": f"dev_{n}", "question": f"Which river does Town {town} lie on?",
              "golden_answers": [f"river number {town}", f"the {town}th"], "metadata": {"type": "bridge"}}
             for n, town in enumerate((42, 150, 9))]


@pytest.fixture()
def walk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """An empty working folder (the current one, ``$HOPKIT_HOME`` in it) and ``$WIKI``, ``$QS``, ``$IDX`` beside it."""
    minilm_or_skip(monkeypatch)
    files = tmp_path / "files"
    files.mkdir()
    wiki, vectors = wiki_and_vectors(files)
    qs = files / "hotpotqa-dev.jsonl"
    qs.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("HOPKIT_HOME", str(work / ".hopkit"))
    monkeypatch.delenv("HOPKIT_DB_URL", raising=False)
    monkeypatch.chdir(work)
    return {"wiki": wiki, "qs": qs, "idx": write_index(vectors, files / "wiki18_minilm_Flat.index"),
            "short": write_index(vectors[:-1], files / "short.index"), "work": work}


def retrieval_config(work: Path, name: str, index: Path) -> None:
    folder = work / "configs" / "retrieval"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.yaml").write_text(
        "_target_: hopkit.pipelines.retrieval.prebuilt.PrebuiltIndexPipeline\n"
        f"name: {name}\nembedder: minilm\nindex_path: {index}\n", encoding="utf-8")


def columns(line: str) -> list[str]:
    return [cell.strip() for cell in re.split(r"\s{2,}", line.strip())]


def stored_titles(work: Path, retrieval: str) -> dict[str, list[str]]:
    """The titles each question's run on ``retrieval`` retrieved, by question."""
    store = Store.connect(f"sqlite:///{work / '.hopkit' / 'hopkit.db'}")
    [run] = [run for run in store.runs("hotpotqa-fr") if run.config["retrieval"]["kind"] == retrieval]
    return {r.query_id: [p.title for p in store.paragraphs_by_ids("hotpotqa-fr", r.chunk_ids)]
            for r in store.results(run.run_id)}


def first_steps(capsys: pytest.CaptureFixture[str], walk: dict[str, Path]) -> None:
    """``corpus add``, ``corpora`` and ``ingest ... --on-corpus wiki18 --first 20``, as the issue writes them."""
    code, out, err = hopkit(capsys, "corpus", "add", "wiki18", str(walk["wiki"]))
    assert code == 0, err
    code, out, err = hopkit(capsys, "corpora")
    assert code == 0 and "wiki18" in out and "300" in out, out + err
    code, out, err = hopkit(capsys, "ingest", "flashrag", str(walk["qs"]), "--name", "hotpotqa-fr", "--on-corpus",
                            "wiki18", "--first", "20")
    assert code == 0 and out.startswith("ingested hotpotqa-fr: 3 questions on corpus wiki18"), out + err


@pytest.mark.unit
def test_a_run_through_index_path_shows_answer_recall_and_a_wrong_index_is_refused_in_one_line(
        walk: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    first_steps(capsys, walk)
    retrieval_config(walk["work"], "wiki18-mine", walk["idx"])
    llm = walk["work"] / "scripted.yaml"
    llm.write_text('_target_: hopkit.llm.fake.ScriptedLLM\nscript: ["river number 42", "the 150th", "Oslo"]\n',
                   encoding="utf-8")
    code, out, err = hopkit(capsys, "run", "oner", "--dataset", "hotpotqa-fr", "--retrieval", "wiki18-mine",
                            "--llm", str(llm), "--quiet")
    assert code == 0 and "3 answered now, 0 failed" in out, out + err
    titles = stored_titles(walk["work"], "prebuilt")
    assert {query: f"Town {town}" in found for (query, found), town in zip(sorted(titles.items()), (42, 150, 9))} \
        == {"dev_0": True, "dev_1": True, "dev_2": True}, titles
    code, out, err = hopkit(capsys, "evaluate", "--dataset", "hotpotqa-fr", "--wide")
    assert code == 0, err
    header, _, row = out.splitlines()[:3]
    cells = dict(zip(columns(header), columns(row)))
    assert cells["EM"].startswith("66.7") and cells["Para R@15"] == "-"  # no gold paragraphs on a named corpus
    assert cells["Ans R@15"].startswith("100.0")  # each question's river found among the retrieved passages
    code, out, err = hopkit(capsys, "run", "oner", "--dataset", "hotpotqa-fr", "--retrieval", "wiki18-mine",
                            "--llm", str(llm), "--quiet")
    assert code == 0 and "3 questions, 3 already done, 0 answered now" in out, out + err  # resumed: nothing asked

    bm25 = walk["work"] / "bm25-scripted.yaml"  # the same answers on BM25 over the same corpus, then compared
    bm25.write_text('_target_: hopkit.llm.fake.ScriptedLLM\nscript: ["river number 42", "the 150th", "Oslo"]\n',
                    encoding="utf-8")
    code, out, err = hopkit(capsys, "run", "oner", "--dataset", "hotpotqa-fr", "--retrieval", "bm25", "--llm",
                            str(bm25), "--name", "oner-bm25", "--quiet")
    assert code == 0 and "3 answered now, 0 failed" in out, out + err
    code, out, err = hopkit(capsys, "compare", "oner", "oner-bm25")
    assert code == 0, err
    assert re.search(r"^Ans R@15 +3 +100\.0 +100\.0 ", out, re.M) and "Not compared: Para R@15, Title R@15," in out
    code, out, err = hopkit(capsys, "report", "--dataset", "hotpotqa-fr", "--out", str(walk["work"] / "report"))
    assert code == 0, err
    table = (walk["work"] / "report" / "comparison.md").read_text(encoding="utf-8")
    assert "| oner |" in table and "| oner-bm25 |" in table

    retrieval_config(walk["work"], "wiki18-short", walk["short"])
    code, out, err = hopkit(capsys, "run", "oner", "--dataset", "hotpotqa-fr", "--retrieval", "wiki18-short",
                            "--llm", str(llm), "--quiet")
    assert code == 2 and "Traceback" not in err, err
    [line] = err.strip().splitlines()  # refused before the embedder is loaded: nothing else is printed
    assert line.startswith(f"hopkit: error: index_path {walk['short']} (retrieval 'wiki18-short'): the index holds "
                           "299 rows but dataset 'hotpotqa-fr'") and "holds 300 passages" in line


@pytest.mark.integration
@pytest.mark.slow
def test_the_issue_72_walk_with_the_embedded_smollm2(walk: dict[str, Path],
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    first_steps(capsys, walk)
    code, out, err = hopkit(capsys, "run", "oner", "--dataset", "hotpotqa-fr", "--retrieval", "bm25")
    assert re.search(r"3 questions, 0 already done, \d answered now, \d failed", out), out + err
    retrieval_config(walk["work"], "wiki18-mine", walk["idx"])
    code, out, err = hopkit(capsys, "run", "oner", "--dataset", "hotpotqa-fr", "--retrieval", "wiki18-mine")
    assert re.search(r"3 questions, 0 already done, \d answered now, \d failed", out), out + err
    code, out, err = hopkit(capsys, "evaluate", "--dataset", "hotpotqa-fr", "--wide")
    assert code == 0, err
    lines = out.splitlines()
    recall = columns(lines[0]).index("Ans R@15")
    rows = [columns(line) for line in lines[2:] if line.startswith("oner (")]
    assert len(rows) == 2 and all(row[recall].startswith("100.0") for row in rows), out  # BM25 and the index
    found = stored_titles(walk["work"], "prebuilt")
    assert all(f"Town {town}" in found[f"dev_{n}"] for n, town in enumerate((42, 150, 9))), found
