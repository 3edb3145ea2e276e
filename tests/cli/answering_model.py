"""A scripted model every shipped pipeline config can run with: the LLM boundary of
``test_cli_shipped_configs.py``, named by an LLM config file as
``_target_: tests.cli.answering_model.AnsweringLLM`` (a :class:`ScriptedLLM` subclass, so allowed).

It reasons one sentence and answers (ALCE's readers citing document 1), ends ReAct's turns with its Finish
action, answers chat turns,
samples, scores any candidate (yes-like ones likelier, for the judges), gives every generated token a
sure log-probability (FLARE) and an entropy (DRAGIN)."""

from __future__ import annotations

import re
from typing import Iterator, Mapping

from hopkit.llm.fake import ScriptedLLM

ANSWER = "Caddow Cross"


def answering(prompt: str) -> str:
    turn = re.search(r"Thought (\d+):$", prompt)
    if turn:
        return f" Osric Pellander was born in {ANSWER}.\nAction {turn.group(1)}: Finish[{ANSWER}]"
    if prompt.rstrip().endswith("Answer:") and "Document [1]" in prompt:  # ALCE: an answer citing its document
        return f"Osric Pellander was born in {ANSWER} [1]."
    if prompt.rstrip().endswith("A:"):
        return f"Osric Pellander was born in {ANSWER}. So the answer is: {ANSWER}."
    return f"So the answer is: {ANSWER}."


class AnyCandidate(Mapping[str, float]):
    """A log-probability for any candidate continuation: yes-like ones -0.1, the others -3."""

    def __getitem__(self, candidate: str) -> float:
        return -0.1 if candidate.strip().lower() in {"yes", "true", "5", "a"} else -3.0

    def __contains__(self, candidate: object) -> bool:
        return isinstance(candidate, str)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


class AnsweringLLM(ScriptedLLM):
    """:func:`answering` with every capability a shipped config may ask for; each one made is kept in
    ``made`` (the command line builds it from its config file), so a test can read its prompts."""

    made: list["AnsweringLLM"] = []

    def __init__(self) -> None:
        super().__init__(answering, scores=AnyCandidate(), token_scores=-0.01, entropies=0.5, sampling=True,
                         chat=True, streaming=True)
        AnsweringLLM.made.append(self)
