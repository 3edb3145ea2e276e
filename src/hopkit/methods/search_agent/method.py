"""Search-R1-style search agents (Jin et al., 2025, and the family trained like it), as an algorithm box::

    T <- the family's instruction with the question q;  written <- ""
    for turn = 1 .. max_turns (+ one more, without a search, for a family that has it):
        P <- T + written, cut to its last max_prompt_tokens (a family that sets it)
        g <- LLM(P) until the search's or the answer's closing tag
        written += g and the closing tag it stopped at
        if g ends in <answer> a:        return a
        if g ends in <search> s:        D <- top-k paragraphs for s, in the family's layout, cut to its first
                                        max_documents_tokens (a family that sets it);  written += D
        otherwise:                      written += the family's invalid-action message (or stop, for a
                                        family that ends the question there)
    no answer written: written += "<answer>", and the model completes it (hopkit's forced answer)

The two cuts are the authors' (Search-R1's and AutoRefine's ``max_obs_length`` and ``max_prompt_length``),
made with the model's tokenizer (:mod:`~hopkit.methods.search_agent.cuts`). After the prompt's cut, a
generation whose prompt would not leave its budget in the context is not asked for: the loop ends
(``context_full``) and the answer is forced; a forced answer that does not fit fails the question
(``ContextFullError``). An answer that is only markup is none
(:func:`~hopkit.methods.agent_turn.agent_answer`).

The tags, the instruction and the documents' layout are the family's template (``templates/``), so a
published checkpoint runs with the template it was trained on, and any instruct model runs as the
prompted baseline those papers also report.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from hopkit.llm.protocol import LLM
from hopkit.methods.agent_turn import agent_answer, continue_turn, prompt_size, turn_fits
from hopkit.methods.gathered import Gathered
from hopkit.methods.prompting import check_fits
from hopkit.methods.search_agent.actions import Action, read_action
from hopkit.methods.search_agent.cuts import head_tokens, tail_start
from hopkit.methods.search_agent.steps import (ForcedReason, SearchAgentAnswer, SearchAgentRead, SearchAgentRetrieve,
                                               SearchAgentSummary, SearchAgentTurn)
from hopkit.methods.search_agent.templates import AgentTemplate, load_template, template_names
from hopkit.options import PositiveInt, check_fields, choices, fixed_after_runs
from hopkit.parsing.answers import clean_direct_answer
from hopkit.records import GenerationResult, Query
from hopkit.retrieval.protocol import Retriever
from hopkit.traces import PREVIOUS
from hopkit.traces.payload import record
from hopkit.usage import ModelCallParts

#: The parts of search-agent that call the model, each a column of the cost tables (``search-agent:<part>``).
PARTS = ModelCallParts("search-agent", ("reason", "answer"))


@dataclass(frozen=True)
class SearchAgentConfig:
    """Options of a search agent.

    Attributes:
        template: a shipped family, or the path of a template YAML file with the same fields.
        k: paragraphs per search (None: the family's published setting).
        max_turns: generations in which the model may search (None: the family's).
        max_tokens: tokens per generation (None: the family's).
        max_query_chars: a query the model writes longer than this is cut to it.
        force_answer: when the model wrote no answer, write the opening answer tag and let it complete
            it (the authors score such a question as wrong; off, hopkit stores it as failed).
        answer_tokens: tokens of that forced answer.
        documents_cut: cut the documents block to the template's ``max_documents_tokens`` (Search-R1 500,
            AutoRefine 1,024: the authors' ``max_obs_length``); false: no cut (hopkit's Search-R1 before
            issue 71, with which the campaign's saved search-agent cells ran; pinned, and left out of the
            run's identity). A template counts toward the run's id by its name, this option by its value.
        title_quotes: show a document's title in the template's quotes (Search-R1 and AutoRefine: their
            corpus's '"Title"'); false: no quotes (with which the campaign's saved search-agent cells ran;
            pinned, and left out of the run's identity).
    """

    template: str = field(default="search-r1", metadata=choices(template_names))
    k: PositiveInt | None = None
    max_turns: PositiveInt | None = None
    max_tokens: PositiveInt | None = None
    max_query_chars: PositiveInt = 1000
    force_answer: bool = True
    answer_tokens: PositiveInt = 32
    documents_cut: bool = field(default=True, metadata=fixed_after_runs(False))
    title_quotes: bool = field(default=True, metadata=fixed_after_runs(False))

    def __post_init__(self) -> None:
        check_fields(self, "search agent option")


def with_template_settings(config: SearchAgentConfig, template: AgentTemplate | None = None) -> SearchAgentConfig:
    """The options as they will run: the family's published settings where none was given."""
    template = template or load_template(config.template)
    return dataclasses.replace(config, k=config.k or template.top_k, max_turns=config.max_turns or template.max_turns,
                               max_tokens=config.max_tokens or template.max_tokens)


class SearchAgent:
    """A search agent: the model reasons, searches between its family's tags, reads the documents
    written back into its turn, and answers between its answer tags.

    Its trace: a ``reason`` step per generation (:class:`SearchAgentTurn`), a ``retrieve`` step per
    search (:class:`SearchAgentRetrieve`), and an ``extract`` (:class:`SearchAgentAnswer`) or ``read``
    (:class:`SearchAgentRead`) step for the answer.
    """

    name = "search-agent"

    def __init__(self, llm: LLM, retriever: Retriever, config: SearchAgentConfig = SearchAgentConfig()) -> None:
        self.llm = llm
        self.retriever = retriever
        self.template = load_template(config.template)
        self.config = with_template_settings(config, self.template)
        self.k = self.config.k or self.template.top_k
        self.max_turns = self.config.max_turns or self.template.max_turns
        self.max_tokens = self.config.max_tokens or self.template.max_tokens

    def generate(self, query: Query) -> GenerationResult:
        template = self.template
        instruction, written, gathered = template.prompt(query.text), "", Gathered()
        queries: list[str] = []
        answer: str | None = None
        forced: ForcedReason = "turn_limit"
        generations = 0
        turns = self.max_turns + (1 if template.final_turn else 0)
        for turn in range(1, turns + 1):
            searching = turn <= self.max_turns
            seen, seen_written = self._rolling(instruction, written)                               # P
            prompt_cut = (seen, seen_written) != (instruction, written)
            if not turn_fits(self.llm, seen, seen_written, self.max_tokens):
                forced = "context_full"
                break
            action = self._generate(seen, seen_written)                                            # g
            generations += 1
            written += self._kept(action)
            record(SearchAgentTurn(generation=action.kept, action=action.kind, turn=turn, searching=searching,
                                   query=action.text if action.kind == "search" else None, prompt_cut=prompt_cut),
                   parent=PREVIOUS)
            if action.kind == "answer":
                answer = agent_answer(action.text, (template.query,))
                record(SearchAgentAnswer(answer=answer, turn=turn), parent=PREVIOUS)
                break
            if action.kind == "search" and searching:                                              # D
                queries.append(action.text)
                written += self._search(action, turn, gathered)
            elif action.kind == "search":  # the extra last turn runs no search
                break
            elif template.invalid is None:
                forced = "no_action"
                break
            else:
                written += template.invalid
        model_answered = answer is not None
        if answer is None:
            answer, written = self._forced_answer(query, instruction, written, forced)
        return GenerationResult(
            text=answer, chunk_ids=gathered.ids,
            metadata=SearchAgentSummary(template=template.name, queries=tuple(queries), transcript=written,
                                        turns=generations + (0 if model_answered or not self.config.force_answer else 1),
                                        forced=None if model_answered else forced, retrieved_titles=gathered.titles))

    def _generate(self, instruction: str, written: str) -> Action:
        stops = (self.template.query[1], self.template.answer[1])
        with PARTS.call("reason"):
            completion = continue_turn(self.llm, instruction, written, chat=self.template.chat, stop=stops,
                                       max_tokens=self.max_tokens)
        return read_action(completion.text, self.template, cut_by_length=completion.finish_reason == "length",
                           max_query_chars=self.config.max_query_chars)

    def _kept(self, action: Action) -> str:
        """What the turn keeps of a generation: the text, and the closing tag it stopped at."""
        kept = action.kept.strip() if self.template.strip_generation else action.kept
        closing = {"search": self.template.query[1], "answer": self.template.answer[1]}.get(action.kind, "")
        return kept + closing

    def _search(self, action: Action, turn: int, gathered: Gathered) -> str:
        """The documents block the turn gets, its search recorded."""
        k = self.k
        hits = self.retriever.retrieve(action.text, k)
        added = gathered.add([hit.paragraph for hit in hits])
        whole = self.template.documents_block([(hit.paragraph.title, hit.paragraph.text) for hit in hits],
                                              quote_titles=self.config.title_quotes)
        # the authors' _process_next_obs: its first tokens kept
        limit = self.template.max_documents_tokens if self.config.documents_cut else None
        block = whole if limit is None else head_tokens(self.llm, whole, limit)
        record(SearchAgentRetrieve(query=action.text, added=added, turn=turn, k=k, cut=action.cut,
                                   documents_cut=block != whole), parent=PREVIOUS, hits=hits)
        return block

    def _rolling(self, instruction: str, written: str) -> tuple[str, str]:
        """The instruction and the turn as the model sees them: their last ``max_prompt_tokens`` tokens (the
        authors' ``_update_rolling_state``); the cut takes the instruction's start first, then the turn's."""
        limit = self.template.max_prompt_tokens
        if limit is None:
            return instruction, written
        start = tail_start(self.llm, instruction + written, limit)
        if start <= len(instruction):
            return instruction[start:], written
        return "", written[start - len(instruction):]

    def _forced_answer(self, query: Query, instruction: str, written: str, reason: ForcedReason) -> tuple[str, str]:
        """The answer the model completes after the opening answer tag ("" with ``force_answer`` off:
        the question is then stored as failed, as the authors score it wrong)."""
        if not self.config.force_answer:
            return "", written
        opening, closing = self.template.answer
        written = f"{written.rstrip()}\n{opening}" if written.strip() else opening
        seen, seen_written = self._rolling(instruction, written)
        check_fits(self.llm, prompt_size(self.llm, seen, seen_written), self.config.answer_tokens)
        with PARTS.call("answer"):
            completion = continue_turn(self.llm, seen, seen_written, chat=self.template.chat,
                                       stop=(closing, self.template.query[0]), max_tokens=self.config.answer_tokens)
        answer = clean_direct_answer(agent_answer(completion.text.replace(opening, " "), (self.template.query,)))
        record(SearchAgentRead(question=query.text, answer=answer, generation=completion.text, reason=reason),
               parent=PREVIOUS)
        return answer, written + completion.text + closing
