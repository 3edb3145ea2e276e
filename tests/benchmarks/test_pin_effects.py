"""The counts of what a pinned fix would change in the saved runs (``hopkit campaign pin-effects``): each
counter on small traces, and the numbers the fidelity tables cite, read again from the saved runs."""

from __future__ import annotations

import pytest

from hopkit.campaign.pin_effects import (SavedAnswer, alce_empty_sentences, alce_irrelevant, alce_none_kept, effects,
                                         main, migres_short_queries, migres_unreadable, searchain_unsolved)

pytestmark = pytest.mark.unit


def _reason(extra: dict, output: object) -> dict:
    return {"kind": "reason", "extra": extra, "output": output}


def test_searchain_counts_processed_nodes_whose_tag_and_answer_disagree() -> None:
    chain = _reason({"round": 1}, {"nodes": [{"answer": "x", "unsolved": False}, {"answer": None, "unsolved": False},
                                            {"answer": "y", "unsolved": True}, {"answer": None, "unsolved": True}]})
    verify = [{"kind": "verify", "extra": {"round": 1, "node": n}, "output": {"verdict": v}}
              for n, v in ((1, "kept"), (2, "completed"), (3, "kept"), (4, "duplicate"))]
    assert searchain_unsolved([SavedAnswer("r", {}, [chain, *verify])]) == (2, 3)  # node 4 was not processed


def test_migres_counts_unreadable_endings_and_short_queries() -> None:
    query = _reason({"module": "query", "over_limit": ["Who is A?"], "repeated": []}, ["Where was Ada Quill born?"])
    answers = [SavedAnswer("r", {"stop_reason": "unreadable_leaf"}, [query]),
               SavedAnswer("r", {"stop_reason": "answered"}, [])]
    assert migres_unreadable(answers) == (1, 2)
    assert migres_short_queries(answers) == (1, 2)


def test_alce_counts_the_irrelevant_rules_unread_answers_and_empty_documents() -> None:
    summ = SavedAnswer("r", {}, [_reason({"how": "summary", "kept": False}, "It is irrelevant to the question."),
                                 _reason({"how": "summary", "kept": False}, "Irrelevant.")])
    vanilla_s = SavedAnswer("s", {}, [_reason({"how": "sentences", "kept": True}, ""),
                                      _reason({"how": "sentences", "kept": True}, "Tarsk is a port.")])
    assert alce_irrelevant([summ, vanilla_s]) == (1, 2)  # the word first: both rules drop it
    assert alce_none_kept([summ, vanilla_s]) == (1, 1)
    assert alce_empty_sentences([summ, vanilla_s]) == (1, 2)


def test_the_saved_runs_give_the_numbers_the_fidelity_tables_cite(capsys: pytest.CaptureFixture[str]) -> None:
    found = {(e.method, e.option): (e.parted, e.counted) for e in effects()}
    assert found == {("searchain", "unsolved_by"): (2, 596), ("migres", "unreadable"): (0, 270),
                     ("migres", "min_query_chars"): (1, 1012), ("alce", "irrelevant_rule"): (22, 1947),
                     ("alce", "none_kept"): (60, 240), ("alce", "empty_sentences"): (110, 600)}
    assert main([]) == 0 and "| alce | `none_kept` | 60 | 240 | SUMM and SNIPPET questions | 20 |" in capsys.readouterr().out
