"""hopkit export / import: a run computed in one store is scored the same in another."""

from __future__ import annotations

from pathlib import Path

import pytest

from hopkit.cli import main

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "src" / "hopkit" / "quickstart" / "sample.jsonl"
ONER = ROOT / "src" / "hopkit" / "configs" / "pipelines" / "oner.yaml"


def _hopkit(capsys: pytest.CaptureFixture[str], db: Path, *args: str) -> tuple[int, str, str]:
    code = main(["--db", f"sqlite:///{db}", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_run_exported_and_imported_scores_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HOPKIT_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("HOPKIT_DB_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    llm = tmp_path / "scripted.yaml"
    llm.write_text("_target_: hopkit.llm.fake.ScriptedLLM\nscript: [Velmora, Osric, Velmora, Tarn]\n",
                   encoding="utf-8")
    source, target, exported = tmp_path / "source.db", tmp_path / "target.db", tmp_path / "runs.jsonl.gz"
    for db in (source, target):
        assert _hopkit(capsys, db, "ingest", "jsonl", str(SAMPLE), "--name", "qs", "--limit", "4")[0] == 0
    code, _, err = _hopkit(capsys, source, "run", str(ONER), "--dataset", "qs", "--llm", str(llm), "--quiet")
    assert code == 0, err

    code, out, err = _hopkit(capsys, source, "export", "oner", "--out", str(exported))
    assert code == 0 and "1 run(s), 4 result(s)" in out, err
    code, out, err = _hopkit(capsys, target, "import", str(exported))
    assert code == 0 and "1 run(s), 4 result(s) added" in out, err
    assert _hopkit(capsys, target, "evaluate")[1] == _hopkit(capsys, source, "evaluate")[1]

    code, out, _ = _hopkit(capsys, target, "import", str(exported))
    assert code == 0 and "0 result(s) added, 4 already here kept" in out

    code, _, err = _hopkit(capsys, tmp_path / "empty.db", "import", str(exported))
    assert code == 1 and "skipped run 'oner'" in err and "ingest it first" in err
