"""The ``searchain-claims`` and ``migres-claims`` sections of docs/benchmarks.md are what the saved
runs (and IRCoT's saved re-reads) give, to the character.

Each section's tables are built again by ``benchmarks.method_claims`` from its command, on the
scratch store the ``restored`` fixture fills with the saved runs. No model is loaded: the run
ids are those of the benchmark's model, named by a stand-in.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pytest

from hopkit.store.store import Store

pytestmark = [pytest.mark.integration, pytest.mark.slow,
              pytest.mark.skipif(not os.environ.get("HOPKIT_DATA_DIR"),
                                 reason="HOPKIT_DATA_DIR is not set: the sections are scored on the samples")]

PAGE = Path(__file__).resolve().parents[2] / "docs" / "benchmarks.md"
CLAIMS = ("searchain-claims", "migres-claims")


@pytest.fixture(scope="module")
def claims(load_benchmark: Callable[[str], ModuleType]) -> ModuleType:
    return load_benchmark("method_claims")


def section_text(name: str) -> str:
    match = re.search(rf"<!-- bench:{re.escape(name)} -->\n(.*?)\n<!-- /bench:{re.escape(name)} -->",
                      PAGE.read_text(encoding="utf-8"), re.S)
    assert match is not None, f"no section {name} on the page"
    return match.group(1)


def rebuilt_body(claims: ModuleType, restored: Any, text: str) -> str:
    from benchmarks.saved_run_ids import QwenStandIn

    command = re.search(r"^Command: `([^`]*)`", text, re.M)
    assert command is not None
    argv = shlex.split(command.group(1))
    args = claims.command_parser().parse_args(argv[argv.index("benchmarks.method_claims") + 1:])
    body = claims.claims_body(Store(restored), restored, QwenStandIn([], context_length=4096), args.llm,
                              args.method, args.datasets, args.limit)
    return "\n\n".join(body)


@pytest.mark.parametrize("name", CLAIMS)
def test_the_saved_runs_give_the_claims_section(claims: ModuleType, restored: Any, name: str) -> None:
    text = section_text(name)
    body = text[text.index("| against |"):]
    assert rebuilt_body(claims, restored, text) == body
