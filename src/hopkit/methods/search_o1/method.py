"""Search-o1 (Li et al., 2025, arXiv 2501.05366) with a retriever, as an algorithm box::

    I <- the instruction (search markers, at most S searches) + the task with the question q
         (the multi-hop QA instruction and S = 10; on a single-hop dataset the single-QA one and S = 5)
    output <- ""
    for turn = 1 .. max_turns:
        g <- LLM(I, output) until <|end_search_query|>;  output += g
        s <- the query g ends with;  no query: stop
        if S searches were made:   output += "the maximum search limit is exceeded"
        elif s was searched:       output += "you have searched this query"
        else:
            D <- top-k paragraphs for s
            r <- LLM(Reason-in-Documents(the reasoning so far, s, D))      (its own prompt and call)
            output += <|begin_search_result|> the information r found <|end_search_result|>
    answer <- the last \\boxed{...} of output (none: the loop writes "\\boxed{" and the model completes it)

A call whose prompt would not leave its budget in the context is not made: a reasoning turn or a
Reason-in-Documents call ends the loop (``context_full``) and the answer is forced; a forced answer
that does not fit fails the question (``ContextFullError``). An answer that is only markup is none
(:func:`~hopkit.methods.agent_turn.agent_answer`).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field

from hopkit.llm.protocol import LLM
from hopkit.methods.agent_turn import agent_answer, continue_turn, prompt_size, turn_fits
from hopkit.methods.gathered import Gathered
from hopkit.methods.prompting import check_fits
from hopkit.methods.search_o1.prompts import (ALREADY_SEARCHED, BEGIN_SEARCH_QUERY, BEGIN_SEARCH_RESULT,
                                              END_SEARCH_QUERY, END_SEARCH_RESULT, LIMIT_EXCEEDED,
                                              multiqa_instruction, openqa_task, reason_in_documents_instruction,
                                              singleqa_instruction)
from hopkit.methods.search_o1.reading import boxed_answer, found_information, last_query, reasoning_for_documents
from hopkit.methods.search_o1.steps import (ForcedReason, QueryOutcome, SearchO1Answer, SearchO1Condense,
                                            SearchO1Reason, SearchO1Retrieve, SearchO1Summary)
from hopkit.methods.adaptive_rag.labels import SINGLE_HOP
from hopkit.options import ADDED_AFTER_FIRST_RUNS, PositiveInt, check_fields, fixed_after_runs
from hopkit.parsing.answers import clean_direct_answer
from hopkit.records import GenerationResult, Paragraph, Query
from hopkit.retrieval.protocol import Retriever
from hopkit.traces import PREVIOUS
from hopkit.traces.payload import record
from hopkit.usage import ModelCallParts

#: The parts of search-o1 that call the model, each a column of the cost tables (``search-o1:<part>``).
PARTS = ModelCallParts("search-o1", ("reason", "reason_in_documents", "answer"))

FORCED_ANSWER = "\n\n**Final Answer**\n\n\\boxed{"


@dataclass(frozen=True)
class SearchO1Config:
    """Options of Search-o1 (defaults: the authors' QA settings, ``run_search_o1.py``: the multi-hop ones, and
    on a single-hop dataset their single-QA instruction and 5 searches).

    Attributes:
        k: paragraphs per search (the authors' top-10 web pages).
        max_searches: searches at most on a multi-hop question (10 for HotpotQA, 2Wiki, MuSiQue and
            Bamboogle); past it the loop answers a query with the authors' "maximum search limit" message.
        max_turns: generations of the reasoning at most (15 for those datasets).
        max_tokens: tokens per generation of the reasoning (the authors' 8,192 for models other than
            QwQ is more than a small model's context; 1,024 here).
        condense_tokens: tokens of each Reason-in-Documents answer.
        max_doc_chars: characters of each paragraph shown to Reason-in-Documents, its first ones (the
            authors keep the sentence best matching the search snippet with 3,000 characters either side,
            the page's first 6,000 when no sentence matches).
        answer_tokens: tokens of the answer the model completes after the loop's ``\\boxed{`` when it boxed
            none.
        single_hop: the single-QA instruction (``get_singleqa_search_o1_instruction``, a one-hop example)
            and ``single_hop_searches`` searches, as the authors run NQ and TriviaQA; None: chosen by the
            dataset the run answers (single-hop: NQ, TriviaQA, PopQA and the others of
            :data:`~hopkit.methods.adaptive_rag.labels.SINGLE_HOP`; a free-text question is multi-hop).
        single_hop_searches: searches at most on a single-hop question (the authors' 5).
        document_id: each document's JSON opens with its number, ``"id"``, as the authors' pages do
            (False: title and context only, as the saved runs did).
    """

    k: PositiveInt = 10
    max_searches: PositiveInt = 10
    max_turns: PositiveInt = 15
    max_tokens: PositiveInt = 1024
    condense_tokens: PositiveInt = 512
    max_doc_chars: PositiveInt = 3000
    answer_tokens: PositiveInt = 32
    single_hop: bool | None = field(default=None, metadata=ADDED_AFTER_FIRST_RUNS)
    single_hop_searches: PositiveInt = field(default=5, metadata=ADDED_AFTER_FIRST_RUNS)
    document_id: bool = field(default=True, metadata=fixed_after_runs(False))

    def __post_init__(self) -> None:
        check_fields(self, "Search-o1 option")


def for_dataset(config: SearchO1Config, dataset: str | None) -> SearchO1Config:
    """``config`` with ``single_hop`` decided by ``dataset`` where it is None (as the authors choose by
    ``dataset_name``, run_search_o1.py l. 199-204 and 332-336)."""
    if config.single_hop is not None:
        return config
    return dataclasses.replace(config, single_hop=dataset is not None and dataset.lower() in SINGLE_HOP)


class SearchO1:
    """Search-o1: the model reasons and searches between its markers; each search's documents are
    condensed by the Reason-in-Documents step into the information put back into the reasoning.

    Its trace: a ``reason`` step per generation (:class:`SearchO1Reason`), a ``retrieve``
    (:class:`SearchO1Retrieve`) and a ``read`` (:class:`SearchO1Condense`) step per search, and an
    ``extract`` step with the answer (:class:`SearchO1Answer`).
    """

    name = "search-o1"

    def __init__(self, llm: LLM, retriever: Retriever, config: SearchO1Config = SearchO1Config()) -> None:
        self.llm = llm
        self.retriever = retriever
        self.config = config

    def generate(self, query: Query) -> GenerationResult:
        config = self.config
        max_searches = config.single_hop_searches if config.single_hop else config.max_searches
        instruction = ((singleqa_instruction if config.single_hop else multiqa_instruction)(max_searches)
                       + openqa_task(query.text))
        output, gathered, searched = "", Gathered(), []
        forced: ForcedReason = "turn_limit"
        for turn in range(1, config.max_turns + 1):
            if not turn_fits(self.llm, instruction, output, config.max_tokens):
                forced = "context_full"
                break
            generation = self._reason(instruction, output)                                          # g
            output += generation
            asked = last_query(generation)                                                         # s
            outcome: QueryOutcome = ("none" if asked is None else "limit" if len(searched) >= max_searches
                                     else "repeated" if asked in searched else "searched")
            record(SearchO1Reason(generation=generation, query=asked, outcome=outcome, turn=turn), parent=PREVIOUS)
            if outcome == "none":
                forced = "no_boxed_answer"
                break
            if outcome == "limit":
                output += LIMIT_EXCEEDED
            elif outcome == "repeated":
                output += ALREADY_SEARCHED
            else:
                searched.append(asked)
                paragraphs = self._retrieve(asked, len(searched), gathered)                        # D
                information = self._condense(output, asked, paragraphs)                              # r
                if information is None:
                    forced = "context_full"
                    break
                output += f"\n\n{BEGIN_SEARCH_RESULT}{information}{END_SEARCH_RESULT}\n\n"
        answer = boxed_answer(output)
        if answer is not None:
            answer = agent_answer(answer)
            record(SearchO1Answer(answer=answer), parent=PREVIOUS)
            reason: ForcedReason | None = None
        else:
            answer, output, reason = self._forced_answer(instruction, output, forced)
        return GenerationResult(
            text=answer, chunk_ids=gathered.ids,
            metadata=SearchO1Summary(queries=tuple(searched), reasoning=output, forced=reason,
                                     retrieved_titles=gathered.titles))

    def _reason(self, instruction: str, output: str) -> str:
        with PARTS.call("reason"):
            completion = continue_turn(self.llm, instruction, output, chat=True, stop=(END_SEARCH_QUERY,),
                                       max_tokens=self.config.max_tokens)
        stopped_at_query = completion.finish_reason != "length" and _opens_query(completion.text)
        return completion.text + (END_SEARCH_QUERY if stopped_at_query else "")

    def _retrieve(self, text: str, number: int, gathered: Gathered) -> list[Paragraph]:
        hits = self.retriever.retrieve(text, self.config.k)
        paragraphs = [hit.paragraph for hit in hits]
        added = gathered.add(paragraphs)
        record(SearchO1Retrieve(query=text, added=added, search=number, k=self.config.k), parent=PREVIOUS,
               hits=hits)
        return paragraphs

    def _condense(self, output: str, asked: str, paragraphs: list[Paragraph]) -> str | None:
        """Reason-in-Documents: the documents, read against the reasoning so far, as the information
        that goes back into it (None: its prompt does not fit in the context, and the loop ends)."""
        reasoning = reasoning_for_documents(output)
        prompt = reason_in_documents_instruction(reasoning, asked, self._documents(paragraphs))
        if not turn_fits(self.llm, prompt, "", self.config.condense_tokens):
            return None
        with PARTS.call("reason_in_documents"):
            completion = continue_turn(self.llm, prompt, "", chat=True, stop=(),
                                       max_tokens=self.config.condense_tokens)
        information = found_information(completion.text)
        record(SearchO1Condense(reasoning=reasoning, information=information, analysis=completion.text,
                                query=asked), parent=PREVIOUS, paragraph_ids=[p.id for p in paragraphs])
        return information

    def _documents(self, paragraphs: list[Paragraph]) -> str:
        """The documents as the authors lay out web pages: a numbered heading, then the page as JSON."""
        def page(number: int, paragraph: Paragraph) -> dict[str, object]:
            fields: dict[str, object] = {"id": number} if self.config.document_id else {}
            return {**fields, "title": paragraph.title, "context": paragraph.text[:self.config.max_doc_chars]}

        return "".join(f"**Web Page {number}:**\n" + json.dumps(page(number, p), ensure_ascii=False, indent=2) + "\n"
                       for number, p in enumerate(paragraphs, start=1))

    def _forced_answer(self, instruction: str, output: str, reason: ForcedReason) -> tuple[str, str, ForcedReason]:
        output += FORCED_ANSWER
        check_fits(self.llm, prompt_size(self.llm, instruction, output), self.config.answer_tokens)
        with PARTS.call("answer"):
            completion = continue_turn(self.llm, instruction, output, chat=True, stop=("}",),
                                       max_tokens=self.config.answer_tokens)
        answer = clean_direct_answer(agent_answer(completion.text))
        record(SearchO1Answer(answer=answer, forced=reason, generation=completion.text), parent=PREVIOUS)
        return answer, output + completion.text + "}", reason


def _opens_query(text: str) -> bool:
    """Whether a search query is still open at the end of ``text`` (the stop string was cut off)."""
    return text.rfind(BEGIN_SEARCH_QUERY) > text.rfind(END_SEARCH_QUERY)
