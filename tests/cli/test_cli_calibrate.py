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
