"""The fix of NoR's and OneR's Flan-T5 question prefix (issue 71) has no option: it changes a prompt only where
the Flan-T5 demonstrations or a question prefix are used, and no saved run uses either, so their answers stand."""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest

from hopkit.campaign.environment import RUNS
from hopkit.pipelines.experiments import load_experiment
from hopkit.methods.reader import ReaderConfig
from hopkit.prompts.layout import render_question

pytestmark = pytest.mark.unit

READERS = ("nor", "oner", "ircot")
DATASETS = ("hotpotqa", "2wikimultihopqa", "musique", "strategyqa")


def saved_configs() -> list[tuple[str, dict[str, Any]]]:
    configs = []
    for path in sorted(RUNS.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            run = next(json.loads(line)["run"] for line in lines if line.startswith('{"run"'))
        configs.append((run["method"], run["config"]["method"]))
    return configs


def test_no_saved_nor_oner_or_ircot_run_uses_the_flan_t5_files_or_a_question_prefix() -> None:
    checked = 0
    for method, options in saved_configs():
        if method not in READERS:
            continue
        checked += 1
        assert (options.get("demonstrations") or {}).get("family", "codex") == "codex", (method, options)
        reader = options.get("reader")
        assert not (isinstance(reader, dict) and reader.get("question_prefix")), (method, options)
        assert not options.get("question_prefix") and not options.get("reader_question_prefix"), (method, options)
    assert checked >= 20


def test_adaptive_rags_strategies_are_declared_without_them_either() -> None:
    for name in READERS:
        for dataset in DATASETS:
            experiment = load_experiment(name, dataset)
            if experiment.skipped is not None:
                continue
            declared = experiment.config
            assert (declared.get("demonstrations") or {}).get("family", "codex") == "codex"
            assert not (isinstance(declared.get("reader"), dict) and declared["reader"].get("question_prefix"))


def test_without_a_prefix_the_question_line_is_what_it_was() -> None:
    assert ReaderConfig().question_prefix == ""
    assert render_question("Who founded Velmora Ironworks?") == "Q: Who founded Velmora Ironworks?\nA:"
