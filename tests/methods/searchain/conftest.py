"""Shared parts of the SearChain tests: the paper's worked example (Figures 20 and 21) on a tiny corpus.

The constants are exposed through the ``kit`` fixture (the test modules are imported
with ``--import-mode=importlib``, so they cannot import a helper module).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Callable

import pytest

from hopkit.judges.protocol import SpanAnswer
from hopkit.records import Paragraph, Query
from hopkit.retrieval.bm25 import BM25Retriever

SPIRIT = Paragraph(1, "Spirit If...", "Spirit If... is the debut solo album by the performer Kevin Drew, "
                                      "released on September 18, 2007.")
DREW = Paragraph(2, "Kevin Drew", "Kevin Drew was born on September 9, 1976 in Toronto; his place of birth is "
                                  "Toronto.")
TERMINAL = Paragraph(3, "Toronto Coach Terminal", "The Toronto Coach Terminal is the central bus station where "
                                                  "greyhound buses leave from in Toronto.")
VANCOUVER = Paragraph(4, "Vancouver", "Vancouver is a coastal city in British Columbia.")
CORPUS = (SPIRIT, DREW, TERMINAL, VANCOUVER)
QUESTION = Query("q1", "Where do greyhound buses that are in the birthplace of Spirit If...'s performer leave from?",
                 ("Toronto Coach Terminal",))

Q1 = "Who is the performer of Spirit If...?"
Q2 = "What is the place of birth of Kevin Drew?"
Q3 = "Where do greyhound buses leave from in Toronto?"
ROUND_1 = (f" {Q1}\n[Answer 1]: Casey Morton Cott\n[Query 2]: What is the place of birth of Casey Morton Cott?\n"
           "[Answer 2]: Cuyahoga County\n[Unsolved Query]: Where do greyhound buses leave from in Cuyahoga County?")
ROUND_2 = (f"[Query 1]: {Q1}\n[Answer 1]: Kevin Drew\n[Query 2]: {Q2}\n[Answer 2]: Vancouver\n"
           "[Unsolved Query]: Where do greyhound buses leave from in Vancouver?")
ROUND_3 = f"[Query 2]: {Q2}\n[Answer 2]: Toronto\n[Unsolved Query]: {Q3}"
ROUND_4 = (f"[Query 1]: {Q1}\n[Answer 1]: Kevin Drew\n[Query 2]: {Q2}\n[Answer 2]: Toronto\n[Query 3]: {Q3}\n"
           "[Answer 3]: Toronto Coach Terminal\n[Final Content]: Greyhound buses leave from Toronto Coach Terminal.")
FINAL = (" The performer of Spirit If... is Kevin Drew [1]. Kevin Drew was born in Toronto [2]. Greyhound buses in "
         "Toronto leave from Toronto Coach Terminal [3]. So the final answer is Toronto Coach Terminal.")
READINGS = {Q1: SpanAnswer("Kevin Drew", 3.0), Q2: SpanAnswer("Toronto", 3.0),
            Q3: SpanAnswer("Toronto Coach Terminal", 0.1)}


def paper_script(prompt: str) -> str:
    """The model of Figures 20 and 21: each round's chain after the feedback before it, then the final content."""
    if prompt.endswith("[Final Content]:"):
        return FINAL
    if "you can give your answer" in prompt:
        return ROUND_4
    if f"answer for {Q2} should be Toronto" in prompt:
        return ROUND_3
    if f"answer for {Q1} should be Kevin Drew" in prompt:
        return ROUND_2
    return ROUND_1


def reading(question: str, passage: str) -> SpanAnswer:
    """The reader of the worked example; a query it was not told about reads nothing."""
    return READINGS.get(question, SpanAnswer("", float("-inf")))


def rounds_script(chains: list[str], final: str = " The answer is Toronto [1].") -> Callable[[str], str]:
    """A model writing ``chains`` in turn (the last one again if asked more), then ``final``."""
    written: list[str] = []

    def script(prompt: str) -> str:
        if prompt.endswith("[Final Content]:"):
            return final
        written.append(prompt)
        return chains[min(len(written), len(chains)) - 1]

    return script


@pytest.fixture
def kit() -> SimpleNamespace:
    """The corpus, the question, the worked example's chains and scripts, and a BM25 index."""
    return SimpleNamespace(
        SPIRIT=SPIRIT, DREW=DREW, TERMINAL=TERMINAL, VANCOUVER=VANCOUVER, CORPUS=CORPUS, QUESTION=QUESTION,
        Q1=Q1, Q2=Q2, Q3=Q3, ROUND_1=ROUND_1, ROUND_2=ROUND_2, ROUND_3=ROUND_3, ROUND_4=ROUND_4, FINAL=FINAL,
        paper_script=paper_script, reading=reading, rounds_script=rounds_script,
        retriever=BM25Retriever.build(CORPUS))
