"""The calibrated thresholds the QA benchmark reads: MIGRES's δ and SearChain's θ, per model.

The calibration scripts write them into ``benchmarks/thresholds.json`` (committed), one
entry per threshold, model config and task group::

    {"migres_relevance": {"qwen2.5-coder-1.5b-4k": {"multihop": {"value": 1.2, "questions": 60, ...}}},
     "searchain_confidence": {"qwen2.5-coder-1.5b-4k": {"all": {"value": 2.3, "f1": 0.71, ...}}}}

Each entry holds ``value`` and how it was found (``questions`` or ``pairs``, ``rule``,
``command``). :func:`calibrated` refuses a threshold that was not measured yet and says
which command measures it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from hopkit.campaign.environment import ROOT

THRESHOLDS_FILE = ROOT / "benchmarks" / "thresholds.json"
MIGRES_RELEVANCE = "migres_relevance"
SEARCHAIN_CONFIDENCE = "searchain_confidence"
#: The `hopkit campaign` tool that measures each threshold.
SCRIPTS = {MIGRES_RELEVANCE: "calibrate-migres", SEARCHAIN_CONFIDENCE: "calibrate-searchain"}
#: SearChain's θ is one value for every task, as the paper's (Appendix A.4.1).
ALL_TASKS = "all"


class NotCalibrated(Exception):
    """A threshold the benchmark needs has not been measured for this model yet."""


def calibration_command(kind: str, llm: str, task: str) -> str:
    """The command that measures threshold ``kind`` for model config ``llm`` and ``task``."""
    task_option = f" --task {task}" if kind == MIGRES_RELEVANCE else ""
    return (f"HOPKIT_DATA_DIR=../shared/data nice -n 19 .venv/bin/hopkit campaign {SCRIPTS[kind]} "
            f"--llm {llm}{task_option}")


def load_thresholds(path: Path = THRESHOLDS_FILE) -> dict[str, Any]:
    """The thresholds file's content ({} when there is none yet)."""
    if not path.exists():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))


def calibrated(kind: str, llm: str, task: str, path: Path = THRESHOLDS_FILE) -> float:
    """The measured threshold ``kind`` for model config ``llm`` on ``task``.

    Raises:
        NotCalibrated: none was measured; the message gives the command that measures it.
    """
    return float(calibration_entry(kind, llm, task, path)["value"])


def calibration_entry(kind: str, llm: str, task: str, path: Path = THRESHOLDS_FILE) -> dict[str, Any]:
    """The whole entry of a measured threshold: ``value`` and the settings it was measured with.

    Raises:
        NotCalibrated: none was measured; the message gives the command that measures it.
    """
    entry = load_thresholds(path).get(kind, {}).get(llm, {}).get(task)
    if entry is None:
        what = (f"MIGRES's relevance threshold δ (task {task!r})" if kind == MIGRES_RELEVANCE
                else "SearChain's confidence threshold θ")
        raise NotCalibrated(f"{what} for the LLM judges of {llm!r} has not been calibrated yet "
                            f"(no entry in {path}); calibrate it first with:\n    "
                            f"{calibration_command(kind, llm, task)}")
    return dict(entry)


def store_threshold(kind: str, llm: str, task: str, entry: Mapping[str, Any], path: Path = THRESHOLDS_FILE) -> None:
    """Write (or replace) one measured threshold, keeping the others.

    Args:
        entry: ``value`` and how it was found (numbers of questions, rule, command).
    """
    if "value" not in entry:
        raise ValueError("a threshold entry needs its 'value'")
    content = load_thresholds(path)
    content.setdefault(kind, {}).setdefault(llm, {})[task] = dict(entry)
    path.write_text(json.dumps(content, indent=2, sort_keys=True) + "\n", encoding="utf-8")
