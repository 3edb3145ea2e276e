"""``hopkit campaign judge`` finds each variant's run under the model it answered with: DRAGIN's saved run was
made by the transformers twin of the campaign's model, and the judge (the campaign's own model) judges it."""

from __future__ import annotations

import os
from pathlib import Path
import pytest

from hopkit.campaign import judge_runs
from hopkit.campaign.environment import RUNS
from hopkit.llm.fake import ScriptedLLM
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store
from hopkit.store.transfer import import_runs
from hopkit.store.verdicts import VerdictStore

pytestmark = [pytest.mark.unit,
              pytest.mark.skipif(not os.environ.get("HOPKIT_DATA_DIR"),
                                 reason="HOPKIT_DATA_DIR is not set: the saved runs are on the samples")]


def test_the_judge_finds_the_run_dragin_answered_through_the_twin(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    factory = DBConnection(f"sqlite:///{tmp_path / 'bench.db'}").get_session_factory()
    judge_runs.ingest(Store(factory), "2wikimultihopqa")
    import_runs(Store(factory), RUNS / "ef4d0702c0eeffff.jsonl.gz")  # DRAGIN's saved run on 2Wiki
    judge_model = ScriptedLLM(lambda prompt: "yes")
    monkeypatch.setattr(judge_runs, "open_store", lambda args: (factory, Store(factory), judge_model))
    saved: list[str] = []
    monkeypatch.setattr(judge_runs, "save", lambda store, run_id: saved.append(run_id))
    assert judge_runs.main(["--datasets", "2wikimultihopqa", "--methods", "dragin", "--limit", "3"]) == 0
    said = capsys.readouterr().out
    assert "dragin on 2wikimultihopqa: 3 answers, 3 judged now" in said and "no run" not in said
    assert saved == ["ef4d0702c0eeffff"]  # the saved DRAGIN run on 2Wiki
    identity = judge_runs.AccuracyJudge(judge_model).identity
    assert (identity.model_id, identity.prompt_version) in VerdictStore(factory).judges(saved)
