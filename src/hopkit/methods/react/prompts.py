"""ReAct's HotpotQA prompt (Yao et al., 2023, "ReAct: Synergizing Reasoning and Acting in Language
Models"), verbatim from the authors' repository (github.com/ysymyth/ReAct): the instruction of
``hotpotqa.ipynb`` and the six trajectories of ``prompts/prompts_naive.json``, key
``webthink_simple6``, kept in ``webthink_simple6.txt`` as the JSON string decodes (its mis-decoded
dashes included)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

INSTRUCTION = (
    "Solve a question answering task with interleaving Thought, Action, Observation steps. Thought can reason "
    "about the current situation, and Action can be three types: \n"  # the authors' space before the newline
    "(1) Search[entity], which searches the exact entity on Wikipedia and returns the first paragraph if it "
    "exists. If not, it will return some similar entities to search.\n"
    "(2) Lookup[keyword], which returns the next sentence containing keyword in the current passage.\n"
    "(3) Finish[answer], which returns the answer and finishes the task.\n"
    "Here are some examples.\n"
)


# hopkit's copy before issue 71 read this label, with a stray "T", in the first trajectory
_FIRST_OBSERVATION = "Observation 1: The Colorado orogeny"
_STRAY_T = "Observation 1T: The Colorado orogeny"


@cache
def examples(stray_t: bool = False) -> str:
    """The six trajectories (``webthink_simple6``), starting and ending with a newline; with ``stray_t``,
    as hopkit's copy read them before issue 71 (the campaign's saved ReAct cells ran with it)."""
    text = Path(__file__).with_name("webthink_simple6.txt").read_text(encoding="utf-8")
    return text.replace(_FIRST_OBSERVATION, _STRAY_T, 1) if stray_t else text


def prompt_start(question: str, stray_t: bool = False) -> str:
    """Instruction, trajectories and the test question, as ``webthink`` starts its prompt."""
    return f"{INSTRUCTION}{examples(stray_t)}Question: {' '.join(question.split())}\n"
