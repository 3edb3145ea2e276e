"""IRCoT's reader stops where the authors' GPT3Generator stops, at the first line break (issue 71); the
saved runs' blank-line stop stays reachable as ``reader_stop: paragraph``."""

from __future__ import annotations

import pytest

from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.ircot.method import IRCoT, IRCoTConfig
from hopkit.options import run_options
from hopkit.retrieval.bm25 import BM25Retriever

pytestmark = pytest.mark.unit

REASONING = "So the answer is: Germany."
READER = "Lost Gravity was manufactured by Mack Rides.\nMack Rides is German. So the answer is: Germany."


def answer(kit, config: IRCoTConfig) -> tuple[str, ScriptedLLM]:
    llm = ScriptedLLM([REASONING, READER])
    method = IRCoT(llm, BM25Retriever.build(kit.CORPUS), config, [kit.DEMO_1, kit.DEMO_2], [kit.DEMO_3])
    return method.generate(kit.QUESTION).text, llm


def test_the_cot_reader_stops_at_the_first_line_break(kit) -> None:
    text, _ = answer(kit, IRCoTConfig(k_per_step=2, reader="cot"))
    assert text == "Lost Gravity was manufactured by Mack Rides"  # no "answer is" on the first line: all of it


def test_reader_stop_paragraph_reads_on_to_the_blank_line_as_the_saved_runs_did(kit) -> None:
    text, _ = answer(kit, IRCoTConfig(k_per_step=2, reader="cot", reader_stop="paragraph"))
    assert text == "Germany"


def test_the_saved_runs_stop_leaves_the_run_identity_unchanged() -> None:
    assert "reader_stop" not in run_options(IRCoTConfig(reader_stop="paragraph"))
    assert run_options(IRCoTConfig())["reader_stop"] == "line"
