"""The paired sections of docs/notebook.md are what the saved runs and IRCoT's saved re-reads give,
to the character: ``searchain-claims``, ``migres-claims`` and the baselines' ``iter-retgen-claims``,
``self-ask-claims``, ``react-shao-claims``, ``react-claims``, ``alce-vanilla-claims``, ``alce-vanilla-s-claims``,
``alce-summ-claims``, ``alce-rerank-claims``, ``alce-snippet-claims``, ``flare-claims`` and the StrategyQA
ones of ITER-RETGEN, Self-Ask, ReAct (Shao et al.), FLARE and ALCE's five readers (hopkit.campaign.method_claims),
the 2025 methods' ``dragin-claims``, ``dragin-plain-case-claims``, ``adaptive-rag-claims``, ``adaptive-rag-trained-claims``,
``search-o1-claims``, ``search-r1-claims``, ``r1-searcher-claims``, ``autorefine-claims`` and on the dense retriever
``search-r1-minilm-claims``, ``search-o1-minilm-claims``, ``r1-searcher-minilm-claims``,
``autorefine-minilm-claims``, ``adaptive-rag-minilm-claims``, ``dragin-plain-case-minilm-claims``, DRAGIN's guarded
lever's ``dragin-guarded-claims`` (StrategyQA),
``baseline-costs`` and ``agents-2025-costs`` (hopkit.campaign.baseline_costs), ``flare-triggers`` (benchmarks.flare_triggers),
``alce-rerank-citations`` (benchmarks.alce_rerank_citations), ``reader-context``
(benchmarks.reader_context_check), ``ircot-demonstrations`` (benchmarks.ircot_demonstrations_check)
and ``searchain-citations`` (benchmarks.searchain_citations, from its saved scores).

Each section's tables are built again by its script from its command, on the scratch store the
``restored`` fixture fills with the saved runs. No model is loaded: the run ids are those of the
benchmark's model, named by a stand-in, and the re-reads come from ``benchmarks/results/``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pytest

from hopkit.campaign.page_sections import tool_arguments
from hopkit.store.store import Store

pytestmark = [pytest.mark.integration, pytest.mark.slow,
              pytest.mark.skipif(not os.environ.get("HOPKIT_DATA_DIR"),
                                 reason="HOPKIT_DATA_DIR is not set: the sections are scored on the samples")]

PAGE = Path(__file__).resolve().parents[2] / "docs" / "notebook.md"
#: section -> (its script, the line its rebuilt part starts with)
SECTIONS = {
    "searchain-claims": ("method_claims", "| against |"),
    "migres-claims": ("method_claims", "| against |"),
    "reader-context": ("reader_context_check", "| dataset |"),
    "ircot-demonstrations": ("ircot_demonstrations_check", "| dataset |"),
    "searchain-citations": ("searchain_citations", "| method |"),
    "iter-retgen-claims": ("method_claims", "| against |"),
    "self-ask-claims": ("method_claims", "| against |"),
    "react-shao-claims": ("method_claims", "| against |"),
    "react-claims": ("method_claims", "| against |"),
    "alce-vanilla-claims": ("method_claims", "| against |"),
    "flare-claims": ("method_claims", "| against |"),
    "alce-vanilla-s-claims": ("method_claims", "| against |"),
    "alce-summ-claims": ("method_claims", "| against |"),
    "alce-rerank-claims": ("method_claims", "| against |"),
    "alce-snippet-claims": ("method_claims", "| against |"),
    "self-ask-claims-strategyqa": ("method_claims", "| against |"),
    "react-shao-claims-strategyqa": ("method_claims", "| against |"),
    "alce-vanilla-claims-strategyqa": ("method_claims", "| against |"),
    "alce-vanilla-s-claims-strategyqa": ("method_claims", "| against |"),
    "alce-summ-claims-strategyqa": ("method_claims", "| against |"),
    "alce-snippet-claims-strategyqa": ("method_claims", "| against |"),
    "alce-rerank-claims-strategyqa": ("method_claims", "| against |"),
    "iter-retgen-claims-strategyqa": ("method_claims", "| against |"),
    "flare-claims-strategyqa": ("method_claims", "| against |"),
    "flare-triggers": ("flare_triggers", "| dataset |"),
    "alce-rerank-citations": ("alce_rerank_citations", "| dataset |"),
    "baseline-costs": ("baseline_costs", "| method |"),
    "dragin-claims": ("method_claims", "| against |"),
    "adaptive-rag-claims": ("method_claims", "| against |"),
    "search-o1-claims": ("method_claims", "| against |"),
    "search-r1-claims": ("method_claims", "| against |"),
    "dragin-plain-case-claims": ("method_claims", "| against |"),
    "agents-2025-costs": ("baseline_costs", "| method |"),
    "adaptive-rag-trained-claims": ("method_claims", "| against |"),
    "r1-searcher-claims": ("method_claims", "| against |"),
    "autorefine-claims": ("method_claims", "| against |"),
    "search-r1-minilm-claims": ("method_claims", "| against |"),
    "search-o1-minilm-claims": ("method_claims", "| against |"),
    "r1-searcher-minilm-claims": ("method_claims", "| against |"),
    "autorefine-minilm-claims": ("method_claims", "| against |"),
    "adaptive-rag-minilm-claims": ("method_claims", "| against |"),
    "dragin-plain-case-minilm-claims": ("method_claims", "| against |"),
    "dragin-guarded-claims": ("method_claims", "| against |"),
}


class SavedScoresOnly:
    """The entailment judge the saved citation scores name, which refuses to judge anything new."""

    judge_id = "llm:qwen2.5-coder-1.5b-instruct-q4_k_m"

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"an answer without a saved citation score would be judged ({name})")


def section_text(name: str) -> str:
    match = re.search(rf"<!-- bench:{re.escape(name)} -->\n(.*?)\n<!-- /bench:{re.escape(name)} -->",
                      PAGE.read_text(encoding="utf-8"), re.S)
    assert match is not None, f"no section {name} on the page"
    return match.group(1)


def rebuilt(script: ModuleType, restored: Any, text: str, name: str = "") -> str:
    """The section's tables built again by ``script`` from the command the section names, its cells resolved
    to the runs it reported (hopkit.campaign.retired_runs)."""
    from hopkit.campaign.retired_runs import rebuilding_section

    with rebuilding_section(name or None):
        return _rebuilt(script, restored, text)


def _rebuilt(script: ModuleType, restored: Any, text: str) -> str:
    from hopkit.campaign.environment import LLM_NAME
    from hopkit.campaign.saved_run_ids import stand_in_model

    command = re.search(r"^Command: `([^`]*)`", text, re.M)
    assert command is not None
    args = script.command_parser().parse_args(tool_arguments(command.group(1), script.__name__))
    store, llm = Store(restored), stand_in_model(LLM_NAME)  # it scores tokens, as llama.cpp does (FLARE)
    if script.__name__ == "hopkit.campaign.method_claims":
        return "\n\n".join(script.claims_body(store, restored, llm, args.llm, args.method, args.datasets,
                                              args.limit))
    if script.__name__ == "hopkit.campaign.baseline_costs":
        return script.costs_table(store, restored, llm, args.llm, args.methods, args.datasets, args.limit)
    if script.__name__ == "benchmarks.flare_triggers":
        return script.triggers_table(store, restored, llm, args.llm, args.datasets, args.limit)
    if script.__name__ == "benchmarks.alce_rerank_citations":
        return script.citations_table(store, restored, llm, args.llm, args.datasets, args.limit)
    if script.__name__ == "benchmarks.reader_context_check":
        return script.reader_table(store, restored, llm, args.datasets, args.limit)
    if script.__name__ == "benchmarks.searchain_citations":
        return script.citations_table(script.citation_rows(store, restored, llm, args.llm, args.methods,
                                                           args.datasets, args.limit, SavedScoresOnly()))
    return script.demonstrations_table(store, restored, llm, args.datasets, args.limit)


@pytest.mark.parametrize("name", sorted(SECTIONS))
def test_the_saved_runs_give_the_section(load_benchmark: Callable[[str], ModuleType], restored: Any,
                                         name: str) -> None:
    script, start = SECTIONS[name]
    text = section_text(name)
    page = text[text.index(start):]
    assert page.count("\n| ") >= 2  # a table with rows, not an empty one
    assert rebuilt(load_benchmark(script), restored, text, name) == page


def test_a_run_short_of_the_questions_asked_for_is_left_out(load_benchmark: Callable[[str], ModuleType],
                                                             restored: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """A run still being made (or stopped, to resume) must not be reported on the questions it has so far."""
    costs = load_benchmark("baseline_costs")
    store, run_id = Store(restored), "39cb0474e2f93b7b"  # ALCE VANILLA on StrategyQA's first 30 questions
    assert len(costs.run_results(store, run_id, "strategyqa", 30)) == 30
    assert costs.run_results(store, run_id, "strategyqa", 31) == []
    assert f"run {run_id} on strategyqa: 30 of the first 31 questions stored" in capsys.readouterr().err
