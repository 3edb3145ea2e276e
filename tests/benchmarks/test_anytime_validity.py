"""The anytime-validity simulation of report_bench: its McNemar table against hopkit's exact test, and a small
seeded run whose shares are bounded as the section says (bounded, not timed)."""

from __future__ import annotations

import numpy as np
import pytest

from hopkit.campaign.anytime_validity import mcnemar_table, section, simulate
from hopkit.evaluation.compare import mcnemar_exact

pytestmark = pytest.mark.unit


def test_the_mcnemar_table_is_hopkit_s_exact_test() -> None:
    table = mcnemar_table(40)
    for won, lost in [(0, 0), (5, 0), (8, 1), (3, 3), (20, 20), (30, 10), (0, 40)]:
        assert table[won, lost] == pytest.approx(mcnemar_exact(won, lost), rel=1e-9)
    assert np.isnan(table[30, 11])  # past 40 questions: not in the table


def test_a_small_simulation_keeps_the_sequence_valid_and_shows_the_naive_test_is_not() -> None:
    nulls, truths = simulate(600, 300, seed=1)
    for result in nulls:
        assert np.all(np.diff(result.anytime) >= 0) and result.anytime[-1] <= 0.05
        assert result.naive_every[-1] > 2 * result.anytime[-1]  # looking after every question inflates the error
        assert result.naive_batch[-1] <= result.naive_every[-1]  # fewer looks, fewer chances
    assert [round(100 * t.difference) for t in truths] == [5, 10, 20]
    assert all(t.covered >= 0.95 for t in truths)
    assert truths[2].decided_share[-1] > truths[0].decided_share[-1]  # a larger difference is decided sooner
    text = section(nulls, truths, 600, 300, "python -m benchmarks.report_bench --anytime-simulation", 1.0, "img/a.png")
    assert "| 0/1, 30% discordant | anytime sequence |" in text and "by n = 300" in text and "by n = 1,000" not in text
