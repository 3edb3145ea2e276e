"""``hopkit campaign judge`` finds each variant's run under the model it answered with: DRAGIN's saved run was
made by the transformers twin of the campaign's model, and the judge (the campaign's own model) judges it."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

import pytest

from hopkit.campaign import judge_runs
from hopkit.campaign.environment import RUNS
from hopkit.campaign.saved_run_ids import stand_in_pipeline
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
    run_id = _as_the_variant_runs_now(RUNS / "ef4d0702c0eeffff.jsonl.gz", "dragin", factory, tmp_path)
    judge_model = ScriptedLLM(lambda prompt: "yes")
    monkeypatch.setattr(judge_runs, "open_store", lambda args: (factory, Store(factory), judge_model))
    saved: list[str] = []
    monkeypatch.setattr(judge_runs, "save", lambda store, run_id: saved.append(run_id))
    assert judge_runs.main(["--datasets", "2wikimultihopqa", "--methods", "dragin", "--limit", "3"]) == 0
    said = capsys.readouterr().out
    assert "dragin on 2wikimultihopqa: 3 answers, 3 judged now" in said and "no run" not in said
    assert saved == [run_id]  # DRAGIN's run on 2Wiki, found under the twin's id
    identity = judge_runs.AccuracyJudge(judge_model).identity
    assert (identity.model_id, identity.prompt_version) in VerdictStore(factory).judges(saved)


def _as_the_variant_runs_now(saved: Path, variant: str, factory: Any, tmp_path: Path) -> str:
    """Import the saved run's answers under the id the variant gives now (the run of an earlier DRAGIN serves
    while its cell is rerun: the judge's finding by the twin's id is what is tested, not the answers)."""
    run = json.loads(next(line for line in gzip.open(saved, "rt", encoding="utf-8") if line.startswith('{"run"')))["run"]
    spec = stand_in_pipeline(variant, run["dataset"], factory).run_spec()
    lines = []
    for line in gzip.open(saved, "rt", encoding="utf-8"):
        record = json.loads(line)
        if "run" in record:
            record["run"].update(run_id=spec.run_id, config=dict(spec.config))
        for value in record.values():
            if isinstance(value, dict) and value.get("run_id") == run["run_id"]:
                value["run_id"] = spec.run_id
        lines.append(json.dumps(record))
    path = tmp_path / f"{spec.run_id}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    import_runs(Store(factory), path)
    return spec.run_id
