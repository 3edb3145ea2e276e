"""ReAct (Yao et al., 2023) on HotpotQA, the authors' ``webthink`` loop over a passage retriever::

    prompt <- instruction, six trajectories, "Question: q"
    for i = 1 .. 7:
        (a) g <- LLM(prompt + "Thought i:"), stopping before "Observation i:"
            split g into the thought and "Action i: ..."; without an action line, keep the
            thought's first line and ask for the action alone (LLM(... "Action i:"), one line)
        (b) Search[x]: the first sentences of what the retriever finds for x
            Lookup[k]: the next sentence of the last search's paragraphs that holds k
            Finish[a]: the answer is a; stop
            anything else: "Invalid action: ..."
            (an action followed by more text on its line is read up to its closing bracket)
        (c) prompt += "Thought i: ...\\nAction i: ...\\nObservation i: ...\\n"
    no Finish in 7 turns: the answer is empty (the authors' finish[])
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hopkit.llm.protocol import LLM
from hopkit.methods.agent_turn import agent_answer
from hopkit.methods.gathered import Gathered
from hopkit.methods.prompting import fitted
from hopkit.methods.react.actions import parse_action, split_thought_action
from hopkit.methods.react.environment import NO_MORE_RESULTS, PassageEnvironment
from hopkit.methods.react.prompts import prompt_start
from hopkit.methods.react.steps import ReActFinish, ReActInvalid, ReActLookup, ReActSearch, ReActSummary, ReActThink
from hopkit.options import PositiveInt, check_fields, fixed_after_runs
from hopkit.parsing.answers import first_line
from hopkit.records import GenerationResult, Query
from hopkit.retrieval.protocol import Retriever
from hopkit.traces import PREVIOUS
from hopkit.traces.payload import record
from hopkit.usage import ModelCallParts

#: The parts of react that call the model, each a column of the cost tables (``react:<part>``).
PARTS = ModelCallParts("react", ("think", "act"))


@dataclass(frozen=True)
class ReActConfig:
    """Options of ReAct.

    Attributes:
        max_turns: Thought/Action/Observation turns at most (the authors' 7); without Finish by then the
            answer is empty.
        k: paragraphs a ``Search[...]`` returns (1: the "first paragraph" of the authors' Wikipedia search);
            the observation shows their first five sentences.
        max_tokens: budget of each generation.
        lookup_end_newline: a Lookup with nothing left observes "No more results.\\n", so the trajectory
            gets a blank line, as the authors' wikienv.py (false: without the newline, as the saved cells
            ran; pinned).
        stray_t: the first trajectory's first observation reads "Observation 1T:", the typo of hopkit's copy
            before issue 71 (the saved cells'; pinned); false: "Observation 1:", as the authors'
            prompts_naive.json.

    ``lookup_end_newline: false`` and ``stray_t: true`` are hopkit's behaviour before issue 71, with which
    the campaign's saved cells ran; at those values the options are left out of the run's identity.
    """

    max_turns: PositiveInt = 7
    k: PositiveInt = 1
    max_tokens: PositiveInt = 100
    lookup_end_newline: bool = field(default=True, metadata=fixed_after_runs(False))
    stray_t: bool = field(default=False, metadata=fixed_after_runs(True))

    def __post_init__(self) -> None:
        check_fields(self, "ReAct option")


class ReAct:
    """ReAct: (a) the model thinks and acts; (b) the action runs against the retriever; (c) its
    observation joins the trajectory; until Finish or the turns run out.

    Its trace: per turn a ``reason`` step (:class:`ReActThink`, or :class:`ReActInvalid`), a
    ``retrieve`` step per Search (:class:`ReActSearch`) and Lookup (:class:`ReActLookup`), and
    an ``extract`` step with the answer (:class:`ReActFinish`).
    """

    name = "react"

    def __init__(self, llm: LLM, retriever: Retriever, config: ReActConfig = ReActConfig()) -> None:
        self.llm = llm
        self.retriever = retriever
        self.config = config

    def generate(self, query: Query) -> GenerationResult:
        no_more = NO_MORE_RESULTS if self.config.lookup_end_newline else NO_MORE_RESULTS.rstrip("\n")
        environment = PassageEnvironment(self.retriever, self.config.k, no_more)
        start = prompt_start(query.text, self.config.stray_t)
        trajectory, searches, found = "", [], Gathered()
        answer, finished, turn = None, False, 0
        for turn in range(1, self.config.max_turns + 1):
            prompt = start + trajectory
            thought, action, reprompted = self._think(prompt, turn)                                # (a)
            record(ReActThink(thought=thought, action=action, turn=turn, reprompted=reprompted), parent=PREVIOUS)
            parsed = parse_action(action)                                                          # (b)
            if parsed is not None and parsed.verb == "finish":
                answer, finished = agent_answer(parsed.argument), True
                observation = "Episode finished"
            elif parsed is not None and parsed.verb == "search":
                observation, hits = environment.search(parsed.argument)
                searches.append(parsed.argument)
                found.add([hit.paragraph for hit in hits])
                record(ReActSearch(query=parsed.argument, observation=observation, turn=turn), parent=PREVIOUS,
                       hits=hits)
            elif parsed is not None:
                observation, paragraph_id = environment.lookup(parsed.argument)
                record(ReActLookup(keyword=parsed.argument, observation=observation, turn=turn), parent=PREVIOUS,
                       paragraph_ids=[] if paragraph_id is None else [paragraph_id])
            else:
                observation = f"Invalid action: {action}"
                record(ReActInvalid(action=action, observation=observation, turn=turn), parent=PREVIOUS)
            written = action if parsed is None else parsed.written
            trajectory += (f"Thought {turn}: {thought}\nAction {turn}: {written}\n"                         # (c)
                           f"Observation {turn}: {observation}\n")
            if finished:
                break
        record(ReActFinish(action=f"Finish[{answer}]" if finished else "finish[]", answer=answer or "",
                           out_of_turns=not finished), parent=PREVIOUS)
        return GenerationResult(
            text=answer or "",
            chunk_ids=found.ids,
            metadata=ReActSummary(turns=turn, trajectory=f"Question: {query.text}\n{trajectory}",
                                  searches=tuple(searches), retrieved_titles=found.titles,
                                  finished=finished),
        )

    def _think(self, prompt: str, turn: int) -> tuple[str, str, bool]:
        """The turn's thought and action; the action asked for alone when the generation has none."""
        thinking = fitted(self.llm, f"{prompt}Thought {turn}:", self.config.max_tokens)
        with PARTS.call("think"):
            generation = self.llm.complete(thinking, stop=[f"\nObservation {turn}:"], max_tokens=self.config.max_tokens,
                                           temperature=0.0).text
        split = split_thought_action(generation, turn)
        if split is not None:
            return split[0], split[1], False
        thought = first_line(generation)
        acting = fitted(self.llm, f"{prompt}Thought {turn}: {thought}\nAction {turn}:", self.config.max_tokens)
        with PARTS.call("act"):
            action = self.llm.complete(acting, stop=["\n"], max_tokens=self.config.max_tokens, temperature=0.0).text
        return thought, action.strip(), True

