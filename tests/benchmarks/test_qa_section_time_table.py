"""hopkit/campaign/qa_section.py's time table: the cost column list's time split, per run."""

from __future__ import annotations

from types import ModuleType
from typing import Callable

import pytest

from hopkit.evaluation.aggregate import QuestionCost, summarize_run
from hopkit.evaluation.scoring import QuestionScores
from hopkit.usage import ComponentUsage, Usage

pytestmark = pytest.mark.unit

SCORES = [QuestionScores("q", 1.0, 1.0, 1.0, None, None, None)]


def test_the_time_table_splits_seconds_as_the_cost_columns_do(load_benchmark: Callable[[str], ModuleType]) -> None:
    qa_section = load_benchmark("qa_section")
    judged = Usage(3.0, {"migres:leaf": ComponentUsage(1, 0.0, 1, 2.0, 100, 50, 5),
                         "retrieval": ComponentUsage(1, 0.1), "judge:relevance": ComponentUsage(2, 0.3, 2, 0.2, 40)})
    plain = Usage(1.0, {"model": ComponentUsage(1, 0.0, 1, 0.5, 100, 0, 5)})
    summaries = [summarize_run("r1", "migres", "migres", "hotpotqa", SCORES, [QuestionCost(judged)]),
                 summarize_run("r2", "nor", "nor", "hotpotqa", SCORES, [QuestionCost(plain)])]
    lines = qa_section.time_split_table(summaries).splitlines()
    # each component's own time between retrieval and other, as in the comparison table and the plot
    assert lines[0] == ("| run | dataset | s/q | LLM s/q | Retr s/q | judge:relevance s/q | migres:leaf s/q | "
                        "Other s/q | other % | Cached % |")
    # 3.0 s = 2.2 in model calls + 0.1 retrieval + 0.3 the judge's own + 0.0 the leaf's own + 0.4 other
    assert lines[2] == "| migres | hotpotqa | 3.00 | 2.20 | 0.100 | 0.30 | 0.00 | 0.400 | 13.33 | 36 |"
    assert lines[3] == "| nor | hotpotqa | 1.00 | 0.50 | 0.000 | - | - | 0.500 | 50.00 | 0 |"
