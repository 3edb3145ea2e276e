"""The model's side of one SearChain question: its growing prompt, and reading its chains.

* :class:`Conversation`: the first round's prompt, then each round's chain and feedback,
  so each call extends the one before (a prefix-caching backend evaluates only the new
  text); when it outgrows the context, the first prompt and the latest turn are kept.
* :func:`read_chain`: the chain in a generation, refused when it says nothing beyond the
  ``[Query 1]:`` the first prompt ends in.
* :func:`chain_stop`: where a chain ends.
"""

from __future__ import annotations

from hopkit.errors import ParseError
from hopkit.llm.protocol import LLM
from hopkit.methods.prompting import check_fits, fits
from hopkit.parsing.chain import EXPECTED, Chain, parse_chain
from hopkit.methods.searchain.prompts import TaskKind


def chain_stop(task: TaskKind) -> tuple[str, ...]:
    """Where a chain ends: a new example. StrategyQA's examples repeat the question before
    their final content (Figure 15), so there a new [Question] line does not end it."""
    stop = ("\nFor example:", "\n\n\n")
    return stop if task == "strategyqa" else (*stop, "\n[Question]")


class Conversation:
    """One question's prompt: the first round's prompt, then each round's chain and feedback."""

    def __init__(self, llm: LLM, first: str) -> None:
        self.llm = llm
        self.first = first
        self.turns: list[str] = []

    def prompt(self, reserve: int, tail: str = "") -> str:
        """The whole conversation then ``tail``; only the first prompt and the latest turn when
        the whole does not leave ``reserve`` tokens of the context.

        Raises:
            LLMError: not even the first prompt and ``tail`` fit.
        """
        for turns in (self.turns, self.turns[-1:], []):
            text = self.first + "".join(turns) + tail
            if fits(self.llm, self.llm.count_tokens(text), reserve):
                return text
        check_fits(self.llm, self.llm.count_tokens(self.first + tail), reserve)
        return self.first + tail

    def append(self, turn: str) -> None:
        """Add a turn (a chain and its feedback, or a request to write the chain again)."""
        self.turns.append(turn)


def read_chain(cue: str, text: str) -> Chain:
    """The chain in ``cue + text``. After the first query's tag the prompt ends in, any text
    would read as a query, so there the text must add an answer, a node or a final content.

    Raises:
        ParseError: no chain, or nothing beyond the cue.
    """
    chain = parse_chain(cue + text)
    if cue and len(chain.nodes) == 1 and chain.nodes[0].answer is None and chain.final_content is None:
        raise ParseError(EXPECTED, cue + text, "nothing after the first query: no answer, no other node, "
                                               "no final content")
    return chain
