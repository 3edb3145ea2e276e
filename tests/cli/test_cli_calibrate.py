"""``hopkit calibrate migres``: δ by the paper's rule on a stored dataset's questions, resumable.

The store is a real SQLite file and the retriever the real BM25 index; the judge runs on the
scripted LLM (constant log-odds, so δ is known) or on the real SmolLM2.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .running import hopkit

pytestmark = pytest.mark.unit


def judge_config(path: Path, yes: float) -> str:
    path.write_text("_target_: hopkit.llm.fake.ScriptedLLM\nscript: []\n"
                    f"scores: {{' yes': {yes}, ' no': 0.0}}\n", encoding="utf-8")
    return str(path)


def test_calibrate_measures_delta_resumes_and_says_how_to_use_it(db: str, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert hopkit(capsys, "--db", db, "ingest", "sample", "--limit", "4")[0] == 0
    judge = judge_config(tmp_path / "judge.yaml", 1.25)
    code, out, err = hopkit(capsys, "--db", db, "calibrate", "migres", "--llm", judge, "--limit", "3", "--hits", "5",
                            "--quiet")
    assert code == 0, err
    assert "on 3 question(s) of sample (questions 1-3; bm25-migres, 5 hits, every hit scored)" in out
    assert "δ = 1.25: 100% of the questions keep a passage (5.0 each" in out
    assert "at the shipped δ = 3, 0% would" in out and "  relevance_threshold: 1.25" in out
    [scores] = (tmp_path / "home" / "calibration").glob("migres-delta-*.json")
    assert len(json.loads(scores.read_text(encoding="utf-8"))["items"]) == 3

    code, out, _ = hopkit(capsys, "--db", db, "calibrate", "migres", "--llm", judge, "--limit", "4", "--hits", "5",
                          "--rerank-top", "2", "--quiet")
    assert code == 0 and "on 4 question(s)" in out and "(2.0 each" in out and "  rerank_top: 2" in out
    assert len(json.loads(scores.read_text(encoding="utf-8"))["items"]) == 4  # the first 3 were kept, 1 added


def test_a_score_file_of_other_settings_is_refused(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert hopkit(capsys, "--db", db, "ingest", "sample", "--limit", "2")[0] == 0
    judge = judge_config(tmp_path / "judge.yaml", 1.0)
    assert hopkit(capsys, "--db", db, "calibrate", "migres", "--llm", judge, "--limit", "1", "--quiet")[0] == 0
    [scores] = (tmp_path / "home" / "calibration").glob("*.json")
    content = json.loads(scores.read_text(encoding="utf-8"))
    scores.write_text(json.dumps({**content, "settings": {**content["settings"], "hits": 7}}), encoding="utf-8")
    code, _, err = hopkit(capsys, "--db", db, "calibrate", "migres", "--llm", judge, "--limit", "1", "--quiet")
    assert code == 2 and "holds scores made with other settings" in err and "move it away" in err


@pytest.mark.integration
@pytest.mark.slow
def test_calibrate_with_the_real_smollm2_judge(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert hopkit(capsys, "--db", db, "ingest", "sample", "--limit", "3")[0] == 0
    code, out, err = hopkit(capsys, "--db", db, "calibrate", "migres", "--llm", "smollm2", "--limit", "3",
                            "--hits", "4", "--quiet")
    assert code == 0, err
    assert "relevance judge llm:SmolLM2" in out and "relevance_threshold: " in out


# -- hopkit calibrate searchain -----------------------------------------------------------------------------------

def reader_config(path: Path, yes: float, answers: int = 40) -> str:
    """The LLM reader on the scripted LLM: it answers "Brannock Ford" each time, with log-odds ``yes``."""
    script = ", ".join(["'Brannock Ford'"] * answers)
    path.write_text(f"_target_: hopkit.llm.fake.ScriptedLLM\nscript: [{script}]\n"
                    f"scores: {{' yes': {yes}, ' no': 0.0}}\n", encoding="utf-8")
    return str(path)


def musique_rows(path: Path) -> Path:
    """Two MuSiQue rows (official format, the fields calibration reads) about the sample's corpus."""
    rows = [{"id": "2hop__1", "question": "Where was the founder of Velmora Ironworks born?",
             "answer": "Caddow Cross", "answer_aliases": ["Caddow"],
             "question_decomposition": [
                 {"id": 1, "question": "Velmora Ironworks >> founded by", "answer": "Osric Pellander"},
                 {"id": 2, "question": "Where was #1 born?", "answer": "Caddow Cross"}]},
            {"id": "2hop__2", "question": "Who founded the foundry of the bell founder?", "answer": "x",
             "question_decomposition": [{"id": 1, "question": "Who founded Greyhallow Foundry?",
                                         "answer": "Benedikt Orrimond"}]}]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_calibrate_searchain_sweeps_theta_on_stored_questions_and_resumes(
        db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert hopkit(capsys, "--db", db, "ingest", "sample", "--limit", "6")[0] == 0
    reader = reader_config(tmp_path / "reader.yaml", 2.0)
    code, out, err = hopkit(capsys, "--db", db, "calibrate", "searchain", "--llm", reader, "--limit", "4", "--quiet")
    assert code == 0, err
    assert "on 4 (question, top-1 passage) pair(s), questions 1-4 of sample, passages from sample (bm25)" in out
    # every confidence is 2.0: every θ below it predicts "answers" for all pairs, so the lowest θ swept wins
    assert "  θ = 1.0: F1 " in out and "recall 100.0" in out
    assert "at the shipped θ = 1.5" in out and "  confidence_threshold: 1.0" in out
    [scores] = (tmp_path / "home" / "calibration").glob("searchain-theta-*.json")
    items = json.loads(scores.read_text(encoding="utf-8"))["items"]
    assert len(items) == 4 and {item["confidence"] for item in items.values()} == {2.0}
    assert all(isinstance(item["paragraph_id"], int) for item in items.values())

    code, out, _ = hopkit(capsys, "--db", db, "calibrate", "searchain", "--llm", reader, "--limit", "6", "--quiet")
    assert code == 0 and "on 6 (question" in out
    assert len(json.loads(scores.read_text(encoding="utf-8"))["items"]) == 6  # the first 4 were kept


def test_calibrate_searchain_reads_the_subquestions_of_musique_decompositions(
        db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert hopkit(capsys, "--db", db, "ingest", "sample", "--limit", "6")[0] == 0
    rows = musique_rows(tmp_path / "musique.jsonl")
    reader = reader_config(tmp_path / "reader.yaml", 2.0)
    code, out, err = hopkit(capsys, "--db", db, "calibrate", "searchain", "--llm", reader, "--decompositions",
                            str(rows), "--quiet")
    assert code == 0, err
    assert "on 3 (question, top-1 passage) pair(s), sub-questions of rows 1-20 of musique.jsonl" in out
    [scores] = (tmp_path / "home" / "calibration").glob("searchain-theta-*decompositions.json")
    items = json.loads(scores.read_text(encoding="utf-8"))["items"]
    assert items["2hop__1#1"]["question"] == "What is the founded by of Velmora Ironworks?"
    assert items["2hop__1#2"]["question"] == "Where was Osric Pellander born?"
    assert items["2hop__1#2"]["golds"] == ["Caddow Cross", "Caddow"]
    assert {type(item["label"]) for item in items.values()} == {bool}


def test_calibrate_searchain_names_the_bad_line_of_a_decompositions_file(
        db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert hopkit(capsys, "--db", db, "ingest", "sample", "--limit", "2")[0] == 0
    rows = musique_rows(tmp_path / "musique.jsonl")
    rows.write_text(rows.read_text(encoding="utf-8") + '{"id": "3", "question_decomposition": [{"q": 1}]}\n',
                    encoding="utf-8")
    reader = reader_config(tmp_path / "reader.yaml", 2.0)
    code, _, err = hopkit(capsys, "--db", db, "calibrate", "searchain", "--llm", reader, "--decompositions",
                          str(rows), "--quiet")
    assert code == 2 and "musique.jsonl, line 3: not a MuSiQue row" in err
    code, _, err = hopkit(capsys, "--db", db, "calibrate", "migres", "--llm", reader, "--decompositions", str(rows))
    assert code == 2 and "--decompositions is for searchain" in err


def test_a_calibrated_threshold_is_stored_and_the_next_run_uses_it_and_says_so(
        db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from hopkit.store.store import Store

    assert hopkit(capsys, "--db", db, "ingest", "sample", "--limit", "3")[0] == 0
    reader = reader_config(tmp_path / "reader.yaml", 2.0)
    code, out, err = hopkit(capsys, "--db", db, "calibrate", "searchain", "--llm", reader, "--limit", "3", "--quiet")
    assert code == 0, err
    assert f"Stored for runs on sample with --llm {reader} and retrieval bm25" in out

    hopkit(capsys, "--db", db, "run", "searchain", "--llm", reader, "--limit", "1", "--quiet", "--name", "calibrated")
    mine = tmp_path / "mine.yaml"  # a config that sets θ itself keeps it
    mine.write_text("experiment: searchain\nname: mine\nconfidence_threshold: 2.5\n", encoding="utf-8")
    code, out, _ = hopkit(capsys, "--db", db, "run", str(mine), "--llm", reader, "--limit", "1", "--quiet")
    assert "calibrated threshold" not in out
    runs = {run.name: run.config["method"]["confidence_threshold"] for run in Store.connect(db).runs()}
    assert runs == {"calibrated": 1.0, "mine": 2.5}


def test_the_run_names_the_threshold_it_took_from_the_store(db: str, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("train", "dev"):  # calibrated on one dataset's questions, for the runs on another
        assert hopkit(capsys, "--db", db, "ingest", "sample", "--limit", "3", "--name", name)[0] == 0
    reader = reader_config(tmp_path / "reader.yaml", 2.0)
    code, out, err = hopkit(capsys, "--db", db, "calibrate", "searchain", "--dataset", "train", "--apply-to", "dev",
                            "--llm", reader, "--limit", "3", "--quiet")
    assert code == 0 and "Stored for runs on dev with" in out, err
    _, out, _ = hopkit(capsys, "--db", db, "run", "searchain", "--dataset", "dev", "--llm", reader, "--limit", "1",
                       "--quiet")
    assert ("calibrated threshold: searchain on dev: confidence_threshold 1.0, from hopkit calibrate (best F1 of "
            "confidence > θ on 3 pairs (Appendix A.4.1), on train; judge ") in out
    _, out, _ = hopkit(capsys, "--db", db, "run", "searchain", "--dataset", "train", "--llm", reader, "--limit", "1",
                       "--quiet")
    assert "calibrated threshold" not in out  # measured on train, kept for dev only
    code, _, err = hopkit(capsys, "--db", db, "calibrate", "searchain", "--dataset", "train", "--apply-to", "test",
                          "--llm", reader, "--limit", "3", "--quiet")
    assert code == 2 and "dataset 'test' is not in the store" in err
