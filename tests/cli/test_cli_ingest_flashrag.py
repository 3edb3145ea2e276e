"""``hopkit ingest flashrag``: the benchmarks' published splits in FlashRAG's format, from a file or the Hub.

The fixtures are written by the tests in FlashRAG's exact format (``id``, ``question``,
``golden_answers``, ``metadata``; gzipped; several golden answers; unicode); the corpus is
given with ``--corpus``; the run is OneR over real BM25 with a scripted LLM; the Hub is the
loopback stand-in (hopkit.llm.testing_hub) named by $HF_ENDPOINT.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Iterator

import pytest

from hopkit import environment
from hopkit.llm.testing_hub import loopback_only, serve_fake_hub
from hopkit.store.store import Store

from .running import hopkit

pytestmark = pytest.mark.unit

QUESTIONS = [
    {"id": "dev_0", "question": "Which city hosts the Kunstmuseum Velmora?",
     "golden_answers": ["Zürich", "Zurich", "the city of Zürich"], "metadata": {"type": "bridge", "level": "hard"}},
    {"id": "dev_1", "question": "In what year was the Brackwater bridge opened?",
     "golden_answers": ["1871"], "metadata": {"type": "comparison"}},
    {"id": "dev_2", "question": "Who painted the Lantern of São Amaro?",
     "golden_answers": ["Inês Caldeira", "Ines Caldeira"], "metadata": None},
    {"id": "dev_3", "question": "What river runs through Oldmere?",
     "golden_answers": ["the Tarn"], "metadata": {}},
]
CORPUS = [
    {"title": "Kunstmuseum Velmora", "text": "The Kunstmuseum Velmora is an art museum in Zürich, Switzerland."},
    {"title": "Brackwater bridge", "text": "The Brackwater bridge over the Oldmere was opened in 1871."},
    {"title": "Lantern of São Amaro", "text": "The Lantern of São Amaro was painted by Inês Caldeira in 1902."},
    {"title": "Oldmere", "text": "Oldmere is a market town; the river Tarn runs through Oldmere."},
] + [{"title": f"Filler {i}", "text": f"Filler paragraph number {i} about nothing in particular."}
     for i in range(30)]


def columns(line: str) -> list[str]:
    return [cell.strip() for cell in line.split("  ") if cell.strip()]


def jsonl(rows: list[dict[str, object]]) -> bytes:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode("utf-8")


@pytest.fixture()
def files(tmp_path: Path) -> tuple[Path, Path]:
    questions = tmp_path / "dev.jsonl.gz"
    questions.write_bytes(gzip.compress(jsonl(QUESTIONS)))
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_bytes(jsonl(CORPUS))
    return questions, corpus


def test_ingest_first_run_oner_on_bm25_and_evaluate_against_every_answer(
        db: str, files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    questions, corpus = files
    code, out, err = hopkit(capsys, "--db", db, "ingest", "flashrag", str(questions), "--name", "hotpotqa-fr",
                            "--corpus", str(corpus), "--first", "3")
    assert code == 0, err
    assert out.startswith("ingested hotpotqa-fr: 3 questions, 0 paragraphs in the pooled corpus and 34 from "
                          "--corpus, 0 gold paragraph links")
    stored = Store.connect(db).queries("hotpotqa-fr")
    assert [q.id for q in stored] == ["dev_0", "dev_1", "dev_2"]  # the file's first 3, in order
    assert stored[0].answers == ("Zürich", "Zurich", "the city of Zürich")
    assert all(q.gold_paragraph_ids == () for q in stored)

    # a scripted model: an alias (EM on the second golden answer), a wrong year, a sentence holding an answer
    llm = tmp_path / "scripted.yaml"
    llm.write_text('_target_: hopkit.llm.fake.ScriptedLLM\nscript: ["zurich", "1872", "It was Ines Caldeira."]\n',
                   encoding="utf-8")
    code, out, err = hopkit(capsys, "--db", db, "run", "oner", "--dataset", "hotpotqa-fr", "--retrieval", "bm25",
                            "--llm", str(llm), "--quiet")
    assert code == 0 and "3 answered now, 0 failed" in out, err
    code, out, err = hopkit(capsys, "--db", db, "evaluate", "--dataset", "hotpotqa-fr", "--wide")
    assert code == 0, err
    header, _, row = out.splitlines()[:3]
    cells = dict(zip(columns(header), columns(row)))
    # EM: "zurich" is the second golden answer; F1: 1, 0 and 2/3 ("It was Ines Caldeira." against the
    # unaccented alias); cover-EM: the alias inside the sentence counts
    assert cells["EM"].startswith("33.3") and cells["F1"].startswith("55.6") and cells["Cover-EM"].startswith("66.7")
    assert cells["Para R@15"] == "-" and cells["Title R@15"] == "-"  # no gold paragraphs: not applicable, not 0
    assert cells["Ans R@15"].startswith("100.0")  # BM25 found each question's answer in the corpus
    code, out, err = hopkit(capsys, "--db", db, "report", "--dataset", "hotpotqa-fr", "--out", str(tmp_path / "rep"))
    assert code == 0, err
    row = next(line for line in (tmp_path / "rep" / "comparison.md").read_text(encoding="utf-8").splitlines()
               if line.startswith("| oner |"))
    assert "| 33.3 ±50.0 | 55.6 ±50.0 | 66.7 ±50.0 | - | - | 100.0 ±0.0 |" in row


def test_a_bad_line_is_named_and_nothing_is_stored(db: str, tmp_path: Path, files: tuple[Path, Path],
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    _, corpus = files
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(jsonl(QUESTIONS[:2]) + b'{"id": "dev_2", "question": "Who?", "golden_answers": "Ines"}\n')
    code, out, err = hopkit(capsys, "--db", db, "ingest", "flashrag", str(bad), "--corpus", str(corpus))
    assert code == 2 and f"{bad}:3" in err and "'golden_answers'" in err and "expected a list" in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert Store.connect(db).datasets() == []


def test_questions_without_a_corpus_are_refused(db: str, files: tuple[Path, Path],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    questions, _ = files
    code, _, err = hopkit(capsys, "--db", db, "ingest", "flashrag", str(questions))
    assert code == 2 and "carry no paragraphs" in err and "--corpus" in err, err
    code, _, err = hopkit(capsys, "--db", db, "ingest", "flashrag", str(questions), "--first", "2", "--limit", "2")
    assert code == 2 and "--first and --limit" in err, err
    code, _, err = hopkit(capsys, "--db", db, "ingest", "flashrag", str(questions), "--split", "dev")
    assert code == 2 and "--split" in err, err


def test_limit_is_still_a_random_sample(db: str, files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    questions, corpus = files
    code, _, err = hopkit(capsys, "--db", db, "ingest", "flashrag", str(questions), "--corpus", str(corpus),
                          "--limit", "2", "--seed", "3")
    assert code == 0, err
    ids = [q.id for q in Store.connect(db).queries("flashrag")]
    assert len(ids) == 2 and ids == sorted(ids, key=[q["id"] for q in QUESTIONS].index)


REPO_FILE = "datasets/RUC-NLPIR/FlashRAG_datasets/hotpotqa/dev.jsonl"


@pytest.fixture()
def hub_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The Hub cache in the test's folder; every connection checked to go to 127.0.0.1 only."""
    monkeypatch.setenv(environment.HOPKIT_CACHE_DIR, str(tmp_path / "cache"))
    with loopback_only() as hosts:
        yield hosts
    assert set(hosts) <= {"127.0.0.1"}, hosts


def test_a_split_by_name_is_downloaded_once_from_the_hub(db: str, files: tuple[Path, Path], tmp_path: Path,
                                                         hub_env: list[str], monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    _, corpus = files
    with serve_fake_hub({REPO_FILE: jsonl(QUESTIONS)}) as hub:
        monkeypatch.setenv(environment.HF_ENDPOINT, hub.url)
        code, out, err = hopkit(capsys, "--db", db, "ingest", "flashrag/hotpotqa", "--split", "dev", "--corpus",
                                str(corpus), "--first", "2")
        assert code == 0, err
        assert out.startswith("ingested hotpotqa: 2 questions")
        assert [r.path for r in hub.requests if r.method == "GET"] == [
            "/datasets/RUC-NLPIR/FlashRAG_datasets/resolve/main/hotpotqa/dev.jsonl"]
        assert list((tmp_path / "cache" / "hub").glob("datasets--RUC-NLPIR--FlashRAG_datasets/snapshots/*/hotpotqa/"
                                                      "dev.jsonl"))
        asked = len(hub.requests)
        code, out, err = hopkit(capsys, "--db", db, "ingest", "flashrag/hotpotqa", "--corpus", str(corpus),
                                "--name", "hotpotqa-all")  # dev by default, read from the cache
        assert code == 0 and out.startswith("ingested hotpotqa-all: 4 questions"), err
        assert len(hub.requests) == asked
        assert [q.answers for q in Store.connect(db).queries("hotpotqa-all")][2] == ("Inês Caldeira", "Ines Caldeira")

        code, _, err = hopkit(capsys, "--db", db, "ingest", "flashrag/popqa", "--split", "dev", "--corpus",
                              str(corpus))
        assert code == 2 and "publishes popqa's test split(s) only" in err, err
        code, _, err = hopkit(capsys, "--db", db, "ingest", "flashrag/musique", "--corpus", str(corpus))
        assert code == 2 and "cannot download hf://datasets/RUC-NLPIR/FlashRAG_datasets/musique/dev.jsonl" in err
        assert "has no file 'musique/dev.jsonl'" in err and len(err.strip().splitlines()) == 1, err
        code, _, err = hopkit(capsys, "--db", db, "ingest", "flashrag/hotpotqa", "local.jsonl")
        assert code == 2 and "hopkit ingest flashrag local.jsonl" in err, err
