"""AccuracyJudge: the MIGRES paper's Table 15 prompt, asked of a scripted model, its verdict read."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hopkit.errors import ConfigError
from hopkit.evaluation.llm_judge import (ACCURACY_PROMPT, EXACT_MATCH_REPLY, PROMPT_VERSION, AccuracyJudge, Verdict,
                                        gold_text)
from hopkit.llm.fake import ScriptedLLM

pytestmark = pytest.mark.unit

# The MIGRES paper's text, beside the clone as the shared data is (.ci/run); skipped without it.
SEED = Path(__file__).resolve().parents[3] / "shared" / "seeds" / "002_a53487cf0ca6068d.txt"


def test_the_prompt_is_table_15_word_for_word() -> None:
    """Words and punctuation as in the paper (the seed's text runs the table's lines together)."""
    if not SEED.exists():
        pytest.skip(f"the paper's text is not at {SEED}")
    paper = SEED.read_text(encoding="utf-8")
    start = paper.index("In the following task, you are given a Question")
    table = paper[start:paper.index("Output Yes or No:", start) + len("Output Yes or No:")]
    ours = ACCURACY_PROMPT.replace("{model_output}", "{model output}")
    assert " ".join(ours.split()) == " ".join(table.split())


def test_the_prompt_names_the_question_prediction_and_gold() -> None:
    prompt = AccuracyJudge.prompt(" Where is Velmora? ", " Lyon ", ["Paris", "paris", "City of Light"])
    assert "Question\nWhere is Velmora?\n\nPrediction\nLyon\n\nGround-truth Answer\nParis or paris or City " \
           "of Light\n\n" in prompt
    assert prompt.endswith("Output Yes or No:")


def test_gold_aliases_are_joined_once_each_and_empty_gold_is_refused() -> None:
    assert gold_text(["Paris", " Paris ", "", "Lutetia"]) == "Paris or Lutetia"
    with pytest.raises(ConfigError, match="at least one non-empty gold answer"):
        gold_text(["", "  "])


def test_a_completion_model_is_asked_the_prompt_greedily_and_its_verdicts_read() -> None:
    llm = ScriptedLLM(["Yes.", "No, it names Lyon.", "I am not sure."])
    judge = AccuracyJudge(llm)
    assert judge.judge("Q1?", "It is Paris", ["Paris"]) == Verdict(True, "Yes.")
    assert judge.judge("Q2?", "Lyon", ["Paris"]) == Verdict(False, "No, it names Lyon.")
    unreadable = judge.judge("Q3?", "?", ["Paris"])
    assert unreadable == Verdict(None, "I am not sure.") and not unreadable.readable
    assert llm.prompts[0] == AccuracyJudge.prompt("Q1?", "It is Paris", ["Paris"])
    assert judge.identity.model_id == "scripted"
    assert judge.identity.prompt_version == f"{PROMPT_VERSION}/completion"


def test_a_chat_model_gets_the_prompt_as_one_user_turn_and_another_identity() -> None:
    llm = ScriptedLLM(["Yes"], chat=True)
    judge = AccuracyJudge(llm)
    assert judge.judge("Q?", "Paris, France", ["Paris"]).correct is True
    assert re.fullmatch(r"<\|user\|>\n(.*)\n<\|assistant\|>\n", llm.prompts[0], re.DOTALL)
    assert AccuracyJudge.prompt("Q?", "Paris, France", ["Paris"]) in llm.prompts[0]
    assert judge.identity.prompt_version == f"{PROMPT_VERSION}/chat"
    assert judge.identity != AccuracyJudge(ScriptedLLM([])).identity


def test_an_exact_match_is_correct_without_asking_unless_exact_matches_are_asked() -> None:
    """A small judge answered "No" when asked whether the prediction "no" implies the gold "no"."""
    llm = ScriptedLLM(["No", "No"])
    judge = AccuracyJudge(llm)
    assert judge.judge("Is Lyon in Spain?", " No. ", ["no"]) == Verdict(True, EXACT_MATCH_REPLY)
    assert judge.judge("Is it the capital?", "The Paris", ["Lyon", "paris"]) == Verdict(True, EXACT_MATCH_REPLY)
    assert llm.prompts == []
    assert judge.judge("Is Lyon in Spain?", "yes", ["no"]) == Verdict(False, "No")
    asking = AccuracyJudge(llm, ask_exact_matches=True)
    assert asking.judge("Is Lyon in Spain?", "no", ["no"]) == Verdict(False, "No")
    assert len(llm.prompts) == 2
    assert asking.identity.prompt_version == f"{PROMPT_VERSION}/completion/asks-exact-matches" != \
        judge.identity.prompt_version


def test_an_exact_match_still_needs_a_gold_answer() -> None:
    with pytest.raises(ConfigError, match="at least one non-empty gold answer"):
        AccuracyJudge(ScriptedLLM([])).judge("Q?", "", ["", " "])


@pytest.mark.parametrize("bad", [0, -1, True, 2.5])
def test_max_tokens_must_be_a_positive_integer(bad: object) -> None:
    with pytest.raises(ConfigError, match="max_tokens"):
        AccuracyJudge(ScriptedLLM([]), max_tokens=bad)  # type: ignore[arg-type]
