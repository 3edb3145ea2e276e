"""FLARE-direct (Jiang et al., 2023, "Active Retrieval Augmented Generation"), as an algorithm box::

    (a) D <- top-k paragraphs for the question
    repeat, one sentence at a time, until a generation ends at its stop or the sentence limit:
        (b) s <- the first sentence of LLM(demonstrations, D, question, sentences so far), at most
               look_ahead_tokens tokens, stopped at a blank line
        (c) if some token of s has probability < θ:
        (d)     q <- s with its tokens of probability < β masked (each a space)
                if q is not empty: D <- top-k paragraphs for q;
                                   s <- the first sentence generated again over the new D
        (f) keep s
    the answer is what follows the first "answer is" in the text kept, to the end of its line
    (nothing when no sentence says it)

The token probabilities come from the model's ``token_scoring`` capability (llama.cpp): a
backend without it is refused when the method is built. The exemplars' paragraphs are what the
retriever finds for each exemplar's question (the authors' ``use_ctx_for_examplars: ret``),
retrieved once before the first question.

The defaults are the authors' code (jzbjyb/FLARE, docs/fidelity.md). The options ``query_masking``,
``stops`` and ``answer_reading`` (and FLAREOptions' ``exemplars`` and ``exemplar_paragraphs``) have a
second value, what the campaign's saved runs did (``hopkit/campaign/saved_run_pins.yaml``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Annotated, Literal, NamedTuple, Sequence

from annotated_types import Interval

from hopkit.judges.sentences import SentenceSplitter, SyntokSplitter
from hopkit.llm.protocol import LLM, TOKEN_SCORING, TokenScores, TokenScoringLLM
from hopkit.llm.capabilities import require
from hopkit.methods.flare.steps import FLAREExtract, FLARELookAhead, FLARERetrieve, FLARESummary, RetrievalReason
from hopkit.methods.flare.exemplars import with_retrieved_paragraphs
from hopkit.methods.gathered import Gathered
from hopkit.methods.prompting import DemonstrationFitter
from hopkit.methods.protocol import WarmsUp
from hopkit.options import PositiveInt, check_fields, fixed_after_runs
from hopkit.parsing.answers import ANSWER_PATTERN, extract_answer
from hopkit.prompts.layout import test_block
from hopkit.records import GenerationResult, Paragraph, Query
from hopkit.retrieval.protocol import Retriever
from hopkit.traces import PREVIOUS
from hopkit.traces.payload import record
from hopkit.usage import ModelCallParts

#: The parts of flare that call the model, each a column of the cost tables (``flare:<part>``).
PARTS = ModelCallParts("flare", ("look-ahead", "check"))

Probability = Annotated[float, Interval(ge=0.0, le=1.0)]
QueryMasking = Literal["space", "remove"]
Stops = Literal["paragraph", "line"]
AnswerReading = Literal["authors", "ircot"]
#: prep.py's reading of a 2WikiMultihopQA output (``answer is (.*)``): the first match, to the end of its
#: line; the colon hopkit's frame writes ("So the answer is: X.") is allowed.
AUTHORS_ANSWER = re.compile(r"answer is:?[ \t]*(.*)")


@dataclass(frozen=True)
class FLAREConfig:
    """Options of FLARE's loop (defaults: the authors' 2WikiMultihopQA configuration).

    Attributes:
        k: paragraphs per retrieval (2 on 2WikiMultihopQA, 3 on StrategyQA).
        theta: θ, a look-ahead sentence with a token below this probability triggers a retrieval and is
            written again (0.8 on 2WikiMultihopQA, 0.4 on StrategyQA).
        beta: β, tokens below this probability are masked out of the retrieval query (0.4).
        look_ahead_tokens: the look-ahead's budget; its first sentence is kept (64).
        max_sentences: sentences generated at most before the answer.
        query_masking: "space": each token below β becomes a space, and a query left empty
            retrieves nothing (the authors' ``mask_method: simple``); "remove": those tokens are
            dropped, and an empty query is replaced by the question (as the saved runs did).
        stops: "paragraph": each generation stops at a blank line, and the loop ends when a kept
            generation ends there or at the end of text (the authors' ``final_stop_sym``); "line":
            it stops at a line break, and the loop ends after the sentence saying "answer is"
            (as the saved runs did).
        answer_reading: "authors": what follows the first "answer is" of the text, to the end of
            its line, nothing without the phrase (the authors' prep.py); "ircot": what follows the
            last "answer is:", the whole text without it (as the saved runs did).
    """

    k: PositiveInt = 2
    theta: Probability = 0.8
    beta: Probability = 0.4
    look_ahead_tokens: PositiveInt = 64
    max_sentences: PositiveInt = 10
    query_masking: QueryMasking = field(default="space", metadata=fixed_after_runs("remove"))
    stops: Stops = field(default="paragraph", metadata=fixed_after_runs("line"))
    answer_reading: AnswerReading = field(default="authors", metadata=fixed_after_runs("ircot"))

    def __post_init__(self) -> None:
        check_fields(self, "FLARE option")


def masked_query(scores: TokenScores, beta: float, masking: QueryMasking = "space") -> tuple[str, tuple[str, ...]]:
    """The sentence with its tokens below β masked (the query), and those tokens: each masked token a space
    ("space", so the pieces either side of a masked sub-word stay apart), or dropped ("remove")."""
    gap = " " if masking == "space" else ""
    kept = "".join(t if p >= beta else gap for t, p in zip(scores.tokens, scores.probabilities))
    masked = tuple(t for t, p in zip(scores.tokens, scores.probabilities) if p < beta)
    return " ".join(kept.split()), masked


def read_answer(text: str, reading: AnswerReading) -> str:
    """The answer in the text FLARE kept: prep.py's first "answer is" to the end of its line, nothing
    without it ("authors"); or IRCoT's reading (:func:`hopkit.parsing.answers.extract_answer`). A final
    period is dropped."""
    if reading == "ircot":
        return extract_answer(text)
    found = AUTHORS_ANSWER.search(text.split("\n\n", 1)[0].strip())
    answer = found.group(1).strip() if found else ""
    return answer[:-1].strip() if answer.endswith(".") else answer


class LookAhead(NamedTuple):
    """One generation's first sentence (with the whitespace before it), the whole generation, and
    whether the generation ended there at its stop or the end of text (nothing after the sentence)."""

    sentence: str
    generation: str
    ended: bool


class FLARE(WarmsUp):
    """FLARE-direct: (a) retrieve with the question; (b) look one sentence ahead; (c) if a token is
    uncertain, (d) retrieve with the sentence, uncertain tokens masked, and (e) write it again;
    (f) keep it; until the answer.

    Its trace: ``retrieve`` steps (:class:`FLARERetrieve`), a ``reason`` step per sentence
    generated (:class:`FLARELookAhead`) and an ``extract`` step (:class:`FLAREExtract`).
    """

    name = "flare"

    def __init__(self, llm: LLM, retriever: Retriever, config: FLAREConfig = FLAREConfig(),
                 demonstrations: Sequence[str] = (), splitter: SentenceSplitter | None = None, *,
                 retrieve_for_demonstrations: bool = False) -> None:
        """``retrieve_for_demonstrations``: the demonstrations are questions and chains whose paragraphs are
        the retriever's top-k for each question, retrieved in :meth:`warm_up` (the authors'
        ``use_ctx_for_examplars: ret``)."""
        require(llm, TOKEN_SCORING, purpose="FLARE's check of each look-ahead sentence")
        self.llm = llm
        self.retriever = retriever
        self.config = config
        self.demonstrations = tuple(demonstrations)
        self.retrieve_for_demonstrations = retrieve_for_demonstrations
        self.fitter = DemonstrationFitter(llm, demonstrations)
        self.splitter = splitter or SyntokSplitter()

    def build_heavy_parts(self) -> None:
        """The demonstrations' retrieved paragraphs, when they are to be retrieved."""
        if self.retrieve_for_demonstrations:
            shown = with_retrieved_paragraphs(self.demonstrations, self.retriever, self.config.k)
            self.fitter = DemonstrationFitter(self.llm, shown)

    def generate(self, query: Query) -> GenerationResult:
        self.warm_up()
        config = self.config
        gathered, queries = Gathered(), [query.text]
        paragraphs = self._retrieve(query.text, "question", (), gathered)                                # (a)
        sentences: list[str] = []
        for _ in range(config.max_sentences):
            prompt = self._prompt(query.text, paragraphs, sentences)
            look = self._look_ahead(prompt)                                                                # (b)
            if not look.sentence:
                break
            scores = self._check(prompt, look.sentence)
            lowest = min(scores.probabilities) if scores.logprobs else 1.0
            uncertain = lowest < config.theta                                                             # (c)
            record(FLARELookAhead(sentence=look.sentence.strip(), lowest_probability=lowest, uncertain=uncertain,
                                  generation=look.generation),
                   parent=PREVIOUS, paragraph_ids=[p.id for p in paragraphs])
            if uncertain:
                search, masked = masked_query(scores, config.beta, config.query_masking)                  # (d)
                if config.query_masking == "remove":
                    search = search or query.text
                if search:  # the authors issue no empty query: the paragraphs and the sentence stay
                    queries.append(search)
                    paragraphs = self._retrieve(search, "uncertain_sentence", masked, gathered)
                    prompt = self._prompt(query.text, paragraphs, sentences)
                    look = self._look_ahead(prompt)                                                        # (e)
                    record(FLARELookAhead(sentence=look.sentence.strip(), regenerated=True, generation=look.generation),
                           parent=PREVIOUS, paragraph_ids=[p.id for p in paragraphs])
                    if not look.sentence:
                        break
            sentences.append(look.sentence if config.stops == "paragraph" else look.sentence.strip())     # (f)
            if config.stops == "paragraph" and look.ended:
                break
            if config.stops == "line" and ANSWER_PATTERN.match(look.sentence.strip()):
                break
        cot = "".join(sentences).strip() if config.stops == "paragraph" else " ".join(sentences)
        sentences = [sentence.strip() for sentence in sentences]
        answer = read_answer(cot, config.answer_reading)
        record(FLAREExtract(cot=cot, answer=answer), parent=PREVIOUS)
        return GenerationResult(
            text=answer,
            chunk_ids=gathered.ids,
            metadata=FLARESummary(sentences=tuple(sentences), retrievals=len(queries), queries=tuple(queries),
                                  retrieved_titles=gathered.titles),
        )

    def _retrieve(self, search: str, reason: RetrievalReason, masked: tuple[str, ...],
                  gathered: Gathered) -> list[Paragraph]:
        hits = self.retriever.retrieve(search, self.config.k)
        paragraphs = [hit.paragraph for hit in hits]
        gathered.add(paragraphs)
        record(FLARERetrieve(query=search, reason=reason, masked=masked, k=self.config.k), parent=PREVIOUS, hits=hits)
        return paragraphs

    def _prompt(self, question: str, paragraphs: Sequence[Paragraph], sentences: Sequence[str]) -> str:
        so_far = "".join(sentences) if self.config.stops == "paragraph" else " ".join(sentences)
        return self.fitter.prompt(test_block(paragraphs, question, so_far), reserve=self.config.look_ahead_tokens)

    def _look_ahead(self, prompt: str) -> LookAhead:
        """The first sentence of what the model writes next (stopped at a blank line, or a line break with
        ``stops: line``), with the whitespace before it."""
        budget = self.config.look_ahead_tokens
        with PARTS.call("look-ahead"):
            completion = self.llm.complete(prompt, stop=["\n\n" if self.config.stops == "paragraph" else "\n"],
                                           max_tokens=budget, temperature=0.0)
        generation = completion.text
        first = self.splitter.first(generation)
        if not first:
            return LookAhead("", generation, True)
        end = generation.find(first) + len(first)
        stopped = completion.finish_reason == "stop" or (completion.finish_reason is None
                                                         and completion.completion_tokens < budget)
        return LookAhead(generation[:end], generation, stopped and not generation[end:].strip())

    def _check(self, prompt: str, sentence: str) -> TokenScores:
        scoring: TokenScoringLLM = self.llm  # type: ignore[assignment]  # required in __init__
        with PARTS.call("check"):
            return scoring.score_tokens(prompt, sentence)
