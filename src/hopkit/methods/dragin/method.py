"""DRAGIN (Su et al., ACL 2024, arXiv 2403.10081; oneal2000/DRAGIN, ``AttnWeightRAG``), as an algorithm box::

    T <- ""                                                      (the output so far)
    repeat until T says "the answer is", passes L tokens, stops growing, or G generations were made:
        g <- LLM(exemplars, case, T), with each token's entropy and the attention among its tokens
        s <- RIND(g): its first sentence with a content word scored above θ
        if there is none:  T <- T + g
        else:
            q <- QFS(question, T, the sentences of g before s, s): the content words s attends to most,
                 cut to its last 64 tokens
            D <- top-k paragraphs for q
            g' <- LLM(exemplars, D, "Answer in the same format as before.", case, T, the sentences before s)
            T <- T + the sentences before s + the first sentence of g' (repeats: skip: its first that T lacks)
    answer <- the authors' answer stage (answer.py): T cut at a run-on; "So the answer is" and 20 tokens
              generated where T never says it; the words after "the answer is"

The entropies and the attention come from the model's ``attention`` capability (the ``transformers``
backend): a backend without it is refused, by name, when the method is built.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Literal

from annotated_types import Gt

from hopkit.judges.sentences import SentenceSplitter, SyntokSplitter
from hopkit.llm.protocol import ATTENTION, LLM, AttendedCompletion, AttendingLLM
from hopkit.llm.capabilities import require
from hopkit.methods.dragin.answer import (ANSWER_SAYS, ANSWER_TOKENS, RUN_ON_MARKS, cut_run_on, real_prediction,
                                          regeneration_prompt, with_generated_answer)
from hopkit.methods.dragin.prompts import PromptSet, generation_prompt, joined, known_sets, prompt_set, retrieval_prompt
from hopkit.methods.dragin.qfs import attended_text, query_of
from hopkit.methods.dragin.rind import Trigger, detect
from hopkit.methods.dragin.steps import (DRAGINExtract, DRAGINGenerate, DRAGINRetrieve, DRAGINSummary, DRAGINTrigger,
                                         StopReason)
from hopkit.methods.gathered import Gathered
from hopkit.methods.prompting import fitted
from hopkit.options import ADDED_AFTER_FIRST_RUNS, PositiveInt, check_fields, choices
from hopkit.records import GenerationResult, Paragraph, Query
from hopkit.retrieval.corpus_view import dedup_key
from hopkit.retrieval.protocol import Retriever
from hopkit.traces import PREVIOUS
from hopkit.traces.payload import record
from hopkit.usage import ModelCallParts

#: The parts of dragin that call the model, each a column of the cost tables (``dragin:<part>``).
PARTS = ModelCallParts("dragin", ("generate", "qfs", "answer", "continue"))

#: where a generation is cut: the exemplars put each answer on one line
LINE_END = "\n"
#: the turns a chat model writes after its answer on the same line
TURN_MARKERS = ("Human:", "Assistant:", "User:", "Question:")


@dataclass(frozen=True)
class DRAGINConfig:
    """Options of DRAGIN's loop (defaults: the authors' HotpotQA configuration for Llama2-7B-chat,
    ``config/Llama2-7b-chat/HotpotQA/DRAGIN.json`` at oneal2000/DRAGIN 4d71efc).

    Attributes:
        threshold: θ, a content word whose RIND score passes it triggers a retrieval (the authors'
            ``hallucination_threshold``: 0.8 on HotpotQA since 58dca59, 1.0 on 2WikiMultihopQA since 47c4cdc).
        k: paragraphs per retrieval (``retrieve_topk``: 3).
        keep_words: QFS's query holds at most this many words (``retrieve_keep_top_k``: 35; 25 on 2Wiki).
        max_query_tokens: the retriever searches the query's last this many tokens of the model's tokenizer
            (the authors' ``max_query_length`` of ``BasicRAG.retrieve``: 64, cut on the left).
        regenerate_answer: the authors' answer stage (``eval.py regenerate_answer``): a text that never says
            "the answer is" gets " So the answer is " and 20 generated tokens before its answer is read; false
            reads the text as it is (one model call fewer; the answer is then empty on HotpotQA's reading).
        max_length: the output's budget in tokens, and each generation's (``generate_max_length``: 100;
            64 on 2Wiki).
        max_generations: generations at most, a bound the authors' loop does not have (it stops when the
            output stops growing).
        exemplars: whose exemplars the prompt holds (null: the run's dataset's where the authors wrote some,
            else HotpotQA's, said at the start of the run).
        shots: how many exemplars (``fewshot``: 8 on HotpotQA, 6 on 2Wiki and StrategyQA).
        case: ``authors``: the test case as the authors' set lays it out (HotpotQA's and StrategyQA's carry
            a step-by-step instruction); ``plain``: "Question: ...\\nAnswer:", as the exemplars' questions.
        turn_stop: also end each generation at a chat turn the model writes on the answer's line
            (:data:`TURN_MARKERS`: "Human:", "Assistant:", "User:", "Question:"; "...no.Human: ..."), as the
            answer reading already cuts there (the authors' generation runs on).
        repeats: ``keep``: after a retrieval, the continuation's first sentence is added, as the authors add
            it; ``skip``: its first sentence the output does not already hold (none: the output stops growing
            and the loop ends).
    """

    threshold: Annotated[float, Gt(0)] = 0.8
    k: PositiveInt = 3
    keep_words: PositiveInt = 35
    max_query_tokens: PositiveInt = 64
    regenerate_answer: bool = True
    max_length: PositiveInt = 100
    max_generations: PositiveInt = 12
    exemplars: str | None = field(default=None, metadata=choices(lambda: [None, *sorted(known_sets())]))
    shots: PositiveInt = 8
    case: Literal["authors", "plain"] = field(default="authors", metadata=ADDED_AFTER_FIRST_RUNS)
    turn_stop: bool = field(default=False, metadata=ADDED_AFTER_FIRST_RUNS)
    repeats: Literal["keep", "skip"] = field(default="keep", metadata=ADDED_AFTER_FIRST_RUNS)

    def __post_init__(self) -> None:
        check_fields(self, "DRAGIN option")


class DRAGIN:
    """DRAGIN: generate; RIND finds the first sentence that needs retrieval; QFS writes its query from
    the attention; the retrieved paragraphs continue the text from before that sentence.

    Its trace: a ``reason`` step per generation (:class:`DRAGINGenerate`), a ``retrieve`` step per
    retrieval (:class:`DRAGINRetrieve`) and an ``extract`` step (:class:`DRAGINExtract`).
    """

    name = "dragin"

    def __init__(self, llm: LLM, retriever: Retriever, config: DRAGINConfig = DRAGINConfig(),
                 prompts: PromptSet | None = None, splitter: SentenceSplitter | None = None) -> None:
        require(llm, ATTENTION, purpose="DRAGIN's RIND and QFS, which read the model's attention")
        self.llm: AttendingLLM = llm  # type: ignore[assignment]  # required just above
        self.retriever = retriever
        self.config = config
        self.prompts = prompts or prompt_set(config.exemplars)
        self.demonstrations = self.prompts.demonstrations(config.shots)
        self.splitter = splitter or SyntokSplitter()
        self.stops = [LINE_END, *TURN_MARKERS] if config.turn_stop else [LINE_END]

    def generate(self, query: Query) -> GenerationResult:
        case = self.prompts.case(query.text, plain=self.config.case == "plain")
        text, gathered, queries = "", Gathered(), []
        stopped: StopReason = "generation_limit"
        generations = 0
        while generations < self.config.max_generations:
            before = text
            attended = self._generate_attended(generation_prompt(self.demonstrations, case, text))          # g
            generations += 1
            trigger = detect(attended, self.splitter, self.config.threshold)                               # s
            generation = attended.completion.text
            if trigger is None:
                text = text.strip() + " " + generation.strip()                      # the authors' spacing
                record(DRAGINGenerate(generation=generation, kept=generation.strip()), parent=PREVIOUS)
            else:
                record(DRAGINGenerate(generation=generation, kept=trigger.before, trigger=_step(trigger)),
                       parent=PREVIOUS)
                search, fallback = self._query(query.text, text, trigger)                                  # q
                queries.append(search)
                paragraphs = self._retrieve(search, fallback, gathered)                                    # D
                continued = self._continue(paragraphs, case, text, trigger.before)                         # g'
                generations += 1
                kept_so_far = joined(text.strip(), trigger.before.strip())
                first = self._kept(continued, kept_so_far)
                text = joined(kept_so_far, first.strip())
                record(DRAGINGenerate(generation=continued, kept=first, after_retrieval=True), parent=PREVIOUS,
                       paragraph_ids=[p.id for p in paragraphs])
            reason = self._finished(before, text)
            if reason is not None:
                stopped = reason
                break
        text = text.strip()  # the authors' main.py strips the prediction before eval.py reads it
        read, regenerated = self._answer_text(case, text)
        answer = real_prediction(read, self.prompts.answers)
        record(DRAGINExtract(text=text, read=read, regenerated=regenerated, answer=answer, stopped=stopped),
               parent=PREVIOUS)
        return GenerationResult(
            text=answer, chunk_ids=gathered.ids,
            metadata=DRAGINSummary(text=text, retrievals=len(queries), queries=tuple(queries), stopped=stopped,
                                   retrieved_titles=gathered.titles))

    def _finished(self, before: str, text: str) -> StopReason | None:
        """The authors' three ends of the loop, in their order of precedence."""
        if len(self.llm.token_texts(text, special_tokens=True)) > self.config.max_length:
            return "length"
        if len(text) <= len(before):
            return "no_progress"
        if ANSWER_SAYS in text:
            return "answered"
        return None

    def _kept(self, continued: str, text: str) -> str:
        """The sentence of the continuation added to the output."""
        if self.config.repeats == "keep":
            return self.splitter.first(continued)
        held = {dedup_key(sentence) for sentence in self.splitter.split(text)}
        return next((s for s in self.splitter.split(continued) if dedup_key(s) not in held), "")

    def _generate_attended(self, prompt: str) -> AttendedCompletion:
        prompt = fitted(self.llm, prompt, self.config.max_length)
        with PARTS.call("generate"):
            return self.llm.complete_attended(prompt, stop=self.stops, max_tokens=self.config.max_length)

    def _query(self, question: str, text: str, trigger: Trigger) -> tuple[str, bool]:
        """QFS's query; the triggering sentence without its triggering words when QFS finds no word."""
        attended = fitted(self.llm, attended_text(question, text, trigger), 1)
        with PARTS.call("qfs"):
            attention = self.llm.attend(attended)
        search = self._last_tokens(query_of(attention, trigger, self.config.keep_words))
        if search:
            return search, False
        kept = " ".join(w for w, hit in zip(trigger.words, trigger.hits) if not hit)
        return self._last_tokens(kept or question), True

    def _last_tokens(self, query: str) -> str:
        """The query's last ``max_query_tokens`` tokens (the authors' left truncation before BM25)."""
        tokens = self.llm.token_texts(query)
        if len(tokens) <= self.config.max_query_tokens:
            return query
        return "".join(tokens[-self.config.max_query_tokens:]).strip()

    def _answer_text(self, case: str, text: str) -> tuple[str, bool]:
        """The text the answer is read from (the authors' ``regenerate_answer``), and whether the answer was
        generated for it."""
        cut = cut_run_on(text)
        if ANSWER_SAYS in cut or not self.config.regenerate_answer:
            return cut, False
        prompt = fitted(self.llm, regeneration_prompt(self.demonstrations, case, cut), ANSWER_TOKENS)
        with PARTS.call("answer"):
            generated = self.llm.complete(prompt, stop=list(RUN_ON_MARKS), max_tokens=ANSWER_TOKENS,
                                          temperature=0.0).text
        return with_generated_answer(cut, generated), True

    def _retrieve(self, search: str, fallback: bool, gathered: Gathered) -> list[Paragraph]:
        hits = self.retriever.retrieve(search, self.config.k)
        paragraphs = [hit.paragraph for hit in hits]
        gathered.add(paragraphs)
        record(DRAGINRetrieve(query=search, k=self.config.k, fallback=fallback), parent=PREVIOUS, hits=hits)
        return paragraphs

    def _continue(self, paragraphs: list[Paragraph], case: str, text: str, before: str) -> str:
        prompt = fitted(self.llm, retrieval_prompt(self.demonstrations, paragraphs, case, text, before),
                        self.config.max_length)
        with PARTS.call("continue"):
            return self.llm.complete(prompt, stop=self.stops, max_tokens=self.config.max_length,
                                     temperature=0.0).text


def _step(trigger: Trigger) -> DRAGINTrigger:
    return DRAGINTrigger(sentence=trigger.sentence, words=trigger.words, scores=trigger.scores, hits=trigger.hits)
