"""The calibration sections of docs/notebook.md and benchmarks/thresholds.json are what the saved
score files (``benchmarks/results/calibration/``) give; the ``token-floor`` table is what its saved
records (``benchmarks/results/token_floor.json``) give.

``searchain-calibration``, ``migres-calibration-multihop`` and ``migres-calibration-strategyqa`` are
rendered again from the scores their command's settings name, and compared with the page from their
third paragraph on (the second says how many cores the machine writing them had); the thresholds
the QA benchmark reads (and the run ids record) must be the ones the scores give. No model, no sample.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pytest

from hopkit.campaign.page_sections import tool_arguments

pytestmark = pytest.mark.unit

DOCS = Path(__file__).resolve().parents[2] / "docs"
#: the calibration sections are in the QA appendix, token-floor among the measurements
PAGES = (DOCS / "notebook.md", DOCS / "benchmarks.md")
MIGRES_SECTIONS = ("migres-calibration-multihop", "migres-calibration-strategyqa")


def section_text(name: str) -> str:
    for page in PAGES:
        match = re.search(rf"<!-- bench:{re.escape(name)} -->\n(.*?)\n<!-- /bench:{re.escape(name)} -->",
                          page.read_text(encoding="utf-8"), re.S)
        if match is not None:
            return match.group(1)
    raise AssertionError(f"no section {name} on the pages")


def command_of(text: str, script: ModuleType) -> tuple[str, Any]:
    """The section's command and its arguments, read by the script's own parser."""
    command = re.search(r"^Command: `([^`]*)`", text, re.M)
    assert command is not None
    return command.group(1), script.command_parser().parse_args(tool_arguments(command.group(1), script.__name__))


def after_machine_line(text: str) -> list[str]:
    parts = text.split("\n\n")[2:]
    assert any(part.startswith("|") for part in parts), "no table after the machine line"
    return parts


def saved(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", MIGRES_SECTIONS)
def test_the_scores_give_the_migres_section_and_delta(load_benchmark: Callable[[str], ModuleType], name: str) -> None:
    migres, calibration, thresholds = (load_benchmark(n) for n in ("migres_calibration", "calibration", "thresholds"))
    text = section_text(name)
    command, args = command_of(text, migres)
    scores = saved(args.scores_dir / f"migres_relevance_{calibration.safe_name(args.llm)}_{args.task}.json")
    result = migres.summary(scores["items"], args.task, args.rerank_top)
    rendered = migres.render(result, args.task, args, command, scores["settings"]["judge"])
    assert after_machine_line(rendered) == after_machine_line(text)
    entry = thresholds.calibration_entry(thresholds.MIGRES_RELEVANCE, args.llm, args.task)
    assert (entry["value"], entry["rerank_top"], entry["questions"]) == \
           (result["value"], args.rerank_top, result["questions"])


def test_the_scores_give_the_searchain_section_and_theta(load_benchmark: Callable[[str], ModuleType]) -> None:
    searchain, calibration, thresholds = (load_benchmark(n)
                                          for n in ("searchain_calibration", "calibration", "thresholds"))
    text = section_text("searchain-calibration")
    command, args = command_of(text, searchain)
    reader = re.search(r"Reader `([^`]+)`", text)
    assert reader is not None
    path = args.scores_dir / (f"searchain_confidence_{calibration.safe_name(args.llm)}_"
                              f"{calibration.safe_name(reader.group(1))}.json")
    scores = saved(path)
    assert scores["settings"]["reader"] == reader.group(1)
    chosen, paper_grid, at_paper = searchain.calibrated_points(scores["items"])
    rendered = searchain.render(chosen, paper_grid, at_paper, scores["items"], args, command, reader.group(1))
    assert after_machine_line(rendered) == after_machine_line(text)
    assert thresholds.calibrated(thresholds.SEARCHAIN_CONFIDENCE, args.llm, thresholds.ALL_TASKS) == chosen.theta


def test_the_saved_records_give_the_token_floor_table(load_benchmark: Callable[[str], ModuleType]) -> None:
    """``token-floor`` is written from benchmarks/results/token_floor.json: its commands and its table."""
    floor = load_benchmark("token_floor")
    text = section_text("token-floor")
    records = floor.load_records()
    assert records and floor.table(records) == text[text.index("| variant |"):]
    for label, command in floor.commands(records):
        assert f"- {label}: `{command}`" in text
