"""Every QA section of docs/notebook.md is what its saved runs give, to the character.

The saved runs (``benchmarks/results/runs``) are restored into a scratch store with the
samples' pooled corpora (the ``restored`` fixture of conftest.py); each section qa_bench
wrote is built again from its command (variants, samples, questions) with
:mod:`hopkit.campaign.qa_sections` and compared with the page. No model is loaded.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pytest

needs_samples = pytest.mark.skipif(not os.environ.get("HOPKIT_DATA_DIR"),
                                   reason="HOPKIT_DATA_DIR is not set: the sections are scored on the samples")

PAGE = Path(__file__).resolve().parents[2] / "docs" / "notebook.md"
#: The QA sections the page has; a section added or removed must be added or removed here too.
SECTIONS = ("qa-kit-rerun", "qa-searchain", "qa-searchain-ablations", "qa-searchain-ablations-strategyqa",
            "qa-migres", "qa-migres-ablations", "qa-baselines", "qa-baselines-strategyqa", "retrieval-qa-oner",
            "retrieval-qa-ircot", "agents-2025", "agents-2025-dense", "agents-2025-strategyqa", "dragin-rerun",
            "dragin-rerun-2wiki", "dragin-rerun-strategyqa", "until-decided-ircot-musique",
            "until-decided-search-r1-2wiki", "until-decided-iter-retgen-hotpotqa")


@pytest.fixture(scope="module")
def sections(load_benchmark: Callable[[str], ModuleType]) -> ModuleType:
    return load_benchmark("qa_sections")


def page_sections(sections: ModuleType) -> dict[str, Any]:
    return {section.name: section for section in sections.qa_sections(PAGE.read_text(encoding="utf-8"))}


@pytest.mark.unit
def test_the_page_has_the_qa_sections(sections: ModuleType) -> None:
    assert tuple(page_sections(sections)) == SECTIONS


@pytest.mark.integration
@pytest.mark.slow
@needs_samples
@pytest.mark.parametrize("name", SECTIONS)
def test_the_saved_runs_give_the_section(sections: ModuleType, restored: Any, name: str) -> None:
    section = page_sections(sections)[name]
    assert sections.rebuilt_body(restored, section) == section.body


@pytest.mark.unit
@pytest.mark.parametrize("name", SECTIONS)
def test_the_heading_names_the_commands_variants_and_each_shows_a_run(sections: ModuleType, name: str) -> None:
    section = page_sections(sections)[name]
    assert section.heading_methods == section.args.methods
    rows = [line.split(" | ")[0].removeprefix("| ") for line in section.body.splitlines()
            if line.startswith("| ") and " | " in line]
    assert set(section.args.methods) <= set(rows)


@pytest.mark.integration
@pytest.mark.slow
@needs_samples
def test_a_changed_number_is_a_difference(sections: ModuleType, restored: Any) -> None:
    section = page_sections(sections)["qa-migres-ablations"]
    doctored = section.body.replace("| migres | migres | 2wikimultihopqa | 30 | 0 | 20.0",
                                    "| migres | migres | 2wikimultihopqa | 30 | 0 | 20.1")
    assert doctored != section.body
    assert sections.rebuilt_body(restored, section) != doctored
