"""The lines under the quickstart's table: what the numbers mean, and what to run for a real comparison."""

from __future__ import annotations

import pytest

from hopkit.config import named_spec
from hopkit.evaluation.aggregate import Estimate, RunSummary
from hopkit.llm.hub import parse_hub_uri
from hopkit.quickstart.notes import COMPARISON_COMMAND, COMPARISON_LLM, reading_notes

pytestmark = pytest.mark.unit


def summary(name: str, em: float, recall: float | None) -> RunSummary:
    metrics = {"em": Estimate(em, 0.0, min(1.0, 2 * em), 24), "f1": Estimate(em, 0.0, 1.0, 24)}
    if recall is not None:
        metrics["paragraph_recall"] = Estimate(recall, recall - 0.1, recall + 0.1, 24)
    return RunSummary(f"id-{name}", name, name.split("-")[-1], "quickstart", 24, 0, metrics,
                      {"llm_calls_per_q": 1.0, "prompt_tokens_per_q": 500.0, "completion_tokens_per_q": 10.0,
                       "seconds_per_q": 2.0, "other_seconds_per_q": 0.1, "cached_prompt_share": 0.0})


RUNS = [summary("quickstart-nor", 0.0, None), summary("quickstart-oner", 0.0, 0.625),
        summary("quickstart-ircot", 0.0417, 0.708)]


def test_with_the_tiny_default_model_the_notes_say_em_near_0_is_expected_and_what_to_run() -> None:
    lines = reading_notes(RUNS, "smollm2")
    text = "\n".join(lines)
    assert lines[0] == "How to read this table:"
    assert "SmolLM2-135M" in text and "near 0 (best EM here 4%) are expected" in text
    assert "measure the model, not the methods" in text
    assert "gold paragraphs found was quickstart-oner 62%, quickstart-ircot 71% (NoR retrieves nothing)" in text
    assert f"    {COMPARISON_COMMAND}" in lines
    assert COMPARISON_COMMAND == "hopkit quickstart --llm qwen2.5-1.5b-instruct"


def test_with_another_model_the_notes_explain_the_intervals_and_name_hopkit_compare() -> None:
    text = "\n".join(reading_notes(RUNS, "hf://Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.gguf"))
    assert "share of the 24 questions answered exactly" in text
    assert "hopkit compare quickstart-oner quickstart-ircot" in text
    assert "SmolLM2" not in text and COMPARISON_COMMAND not in text


def test_the_suggested_model_is_a_packaged_config_naming_a_hub_file() -> None:
    path = named_spec("llm", COMPARISON_LLM)["model_path"]
    assert parse_hub_uri(path).repo == "Qwen/Qwen2.5-1.5B-Instruct-GGUF"
