"""MIGRES's LLM modules: Main, Query Generator, Leaf, and LLM knowledge prompting.

Each module builds its prompt from :mod:`hopkit.methods.migres.prompts` (instruction and
demonstrations first, the question's part last), asks the model greedily, and reads the
response (:mod:`hopkit.methods.migres.responses`). A response that cannot be read is
asked once more, the prompt then extended with the unreadable response and a short
correction (a greedy model, or a response cache, would repeat the same prompt's answer);
if that fails too the module returns an :class:`Asked` with the error and both raw
texts, for the method to record as a failed step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Generic, Sequence, TypeVar

from hopkit.errors import ParseError
from hopkit.llm.protocol import LLM
from hopkit.methods.migres.responses import LeafFact, MainVerdict, parse_leaf, parse_main, parse_queries
from hopkit.methods.prompting import check_fits, fits
from hopkit.methods.migres import prompts
from hopkit.methods.migres.demonstrations import MIGRESDemonstrations
from hopkit.usage import ModelCallParts

#: The parts of migres that call the model, each a column of the cost tables (``migres:<part>``).
PARTS = ModelCallParts("migres", ("main", "final_main", "query", "leaf", "knowledge"))

T = TypeVar("T")

#: Where each module's response ends: a blank line, or the model starting a new demonstration.
STOPS: dict[str, tuple[str, ...]] = {
    "main": ("\n\n", "\nInformation:", "\nQuestion:"),
    "final_main": ("\n\n", "\nInformation:", "\nQuestion:"),
    "query": ("\n\n", "\nOriginal Question:", "\nHistorical Questions:"),
    "leaf": ("\n\n", "\nPassage 0:", "\nQuestion:"),
    "knowledge": ("\n\n", "\nQuestion:"),
}
_CORRECTIONS = {
    "main": "That response could not be read ({detail}). Please generate a dict format response.\nYour response:",
    "query": "That response could not be read ({detail}). Write each new query on its own line.\nNew queries:",
    "leaf": "That response could not be read ({detail}). Please generate a dict format response.\nYour response:",
}


@dataclass(frozen=True)
class Asked(Generic[T]):
    """A module's reading of the model's response.

    Attributes:
        value: what was read; None when neither response could be read.
        generations: the model's raw responses (one, or two when it was asked once more).
        error: why the last response could not be read (None when ``value`` is set).
    """

    value: T | None
    generations: tuple[str, ...]
    error: str | None = None

    @property
    def failed(self) -> bool:
        return self.value is None


class MIGRESModules:
    """The LLM modules of MIGRES for one model, with their prompts.

    Each module's model calls count under the usage label ``migres:<module>`` (``migres:main``,
    ``migres:final_main``, ``migres:query``, ``migres:leaf``, ``migres:knowledge``): calls,
    tokens and seconds are the question's usage record's, not the modules'.

    Args:
        llm: the model (temperature 0 for every call).
        demonstrations: the authors' demonstrations per module (None: zero-shot).
        yes_no: StrategyQA's Main Module instruction (Table 17's caption).
        max_tokens: most tokens per response.
    """

    def __init__(self, llm: LLM, demonstrations: MIGRESDemonstrations | None, *, yes_no: bool,
                 max_tokens: int) -> None:
        self.llm = llm
        self.demonstrations = demonstrations
        self.yes_no = yes_no
        self.max_tokens = max_tokens
        self.knowledge_tokens = 0  # tokens of the knowledge shown to the Leaf Module (Table 5's "# Tokens")
        self.cut_short = False  # whether max_tokens cut the last response short
        instructions = {
            "main": prompts.main_instruction(yes_no, final=False),
            "final_main": prompts.main_instruction(yes_no, final=True),
            "query": prompts.QUERY_INSTRUCTION,
            "leaf": prompts.LEAF_INSTRUCTION,
            "knowledge": prompts.KNOWLEDGE_INSTRUCTION,
        }
        demos = demonstrations
        shots = {} if demos is None else {"main": demos.main, "final_main": demos.final_main, "query": demos.query,
                                          "leaf": demos.leaf, "knowledge": demos.knowledge}
        self.prefixes = {module: prompts.prefixed(text, shots.get(module)) for module, text in instructions.items()}
        self.zero_shot_prefixes = {module: prompts.prefixed(text, None) for module, text in instructions.items()}

    def main(self, facts: Sequence[str], question: str, *, final: bool) -> Asked[MainVerdict]:
        """The Main Module (``final``: the last iteration's, which may answer from the model's own knowledge)."""
        module = "final_main" if final else "main"
        return self._ask(module, prompts.main_instance(facts, question), parse_main, correction="main")

    def queries(self, question: str, asked: Sequence[str], facts: Sequence[str], missing: str) -> Asked[list[str]]:
        """The Query Generator: new queries for the missing information (not yet checked against memory)."""
        return self._ask("query", prompts.query_instance(question, asked, facts, missing),
                         lambda text: parse_queries(text, cut_short=self.cut_short), correction="query")

    def leaf(self, passages: Sequence[tuple[str, str | None]], question: str) -> Asked[list[LeafFact]]:
        """The Leaf Module: useful information from ``passages`` (``(text, title)``), citing their indices."""
        self.knowledge_tokens += sum(self.llm.count_tokens(text) for text, _ in passages)
        return self._ask("leaf", prompts.leaf_instance(passages, question), parse_leaf, correction="leaf")

    def knowledge(self, query: str) -> str:
        """LLM knowledge prompting (Table 15): what the model knows about ``query`` ("" if nothing)."""
        return self._complete("knowledge", prompts.knowledge_instance(query)).strip()

    def _prompt(self, module: str, instance: str) -> str:
        """The prefix and ``instance``; without demonstrations if they do not fit in the context.

        Raises:
            LLMError: the prompt does not fit even without demonstrations.
        """
        prompt = self.prefixes[module] + instance
        if fits(self.llm, self.llm.count_tokens(prompt), self.max_tokens):
            return prompt
        prompt = self.zero_shot_prefixes[module] + instance
        check_fits(self.llm, self.llm.count_tokens(prompt), self.max_tokens)
        return prompt

    def _complete(self, module: str, instance: str, suffix: str = "") -> str:
        with PARTS.call(module):
            prompt = self._prompt(module, instance) + suffix
            completion = self.llm.complete(prompt, stop=STOPS[module], max_tokens=self.max_tokens, temperature=0.0)
        self.cut_short = completion.finish_reason == "length"
        return completion.text

    def _ask(self, module: str, instance: str, parse: Callable[[str], T], *, correction: str) -> Asked[T]:
        first = self._complete(module, instance)
        try:
            return Asked(parse(first), (first,))
        except ParseError as error:
            suffix = " " + first.strip() + "\n" + _CORRECTIONS[correction].format(detail=error.detail or "no format")
        second = self._complete(module, instance, suffix)
        try:
            return Asked(parse(second), (first, second))
        except ParseError as error:
            return Asked(None, (first, second), str(error))
