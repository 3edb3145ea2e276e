"""FLARE-direct (Jiang et al., 2023, "Active Retrieval Augmented Generation"), as an algorithm box::

    (a) D <- top-k paragraphs for the question
    repeat, one sentence at a time, until the answer or the sentence limit:
        (b) s <- the first sentence of LLM(demonstrations, D, question, sentences so far), at most
               look_ahead_tokens tokens
        (c) if some token of s has probability < θ:
        (d)     D <- top-k paragraphs for s with its tokens of probability < β masked
        (e)     s <- the first sentence generated again over the new D
        (f) keep s
    the answer is what follows "answer is" in the sentences kept (all of them when none says it)

The token probabilities come from the model's ``token_scoring`` capability (llama.cpp): a
backend without it is refused when the method is built.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Sequence

from annotated_types import Interval

from hopkit.judges.sentences import SentenceSplitter, SyntokSplitter
from hopkit.llm.protocol import LLM, TOKEN_SCORING, TokenScores, TokenScoringLLM, require
from hopkit.methods.flare.steps import FLAREExtract, FLARELookAhead, FLARERetrieve, FLARESummary, RetrievalReason
from hopkit.methods.gathered import Gathered
from hopkit.methods.prompting import DemonstrationFitter
from hopkit.options import PositiveInt, check_fields
from hopkit.parsing.answers import ANSWER_PATTERN, extract_answer
from hopkit.prompts.layout import test_block
from hopkit.records import GenerationResult, Paragraph, Query
from hopkit.retrieval.protocol import Retriever
from hopkit.traces.payload import record
from hopkit.usage import usage_component

Probability = Annotated[float, Interval(ge=0.0, le=1.0)]


@dataclass(frozen=True)
class FLAREConfig:
    """Options of FLARE's loop (defaults: the authors' 2WikiMultihopQA configuration).

    Attributes:
        k: paragraphs per retrieval (2 on 2WikiMultihopQA, 3 on StrategyQA).
        theta: θ, a look-ahead sentence with a token below this probability triggers a retrieval
            (0.8 on 2WikiMultihopQA, 0.4 on StrategyQA).
        beta: β, tokens below this probability are masked out of the retrieval query (0.4).
        look_ahead_tokens: the look-ahead's budget; its first sentence is kept (64).
        max_sentences: sentences generated at most before the answer.
    """

    k: PositiveInt = 2
    theta: Probability = 0.8
    beta: Probability = 0.4
    look_ahead_tokens: PositiveInt = 64
    max_sentences: PositiveInt = 10

    def __post_init__(self) -> None:
        check_fields(self, "FLARE option")


def masked_query(scores: TokenScores, beta: float) -> tuple[str, tuple[str, ...]]:
    """The sentence without its tokens below β (the query), and those tokens."""
    kept = "".join(t for t, p in zip(scores.tokens, scores.probabilities) if p >= beta)
    masked = tuple(t for t, p in zip(scores.tokens, scores.probabilities) if p < beta)
    return " ".join(kept.split()), masked


class FLARE:
    """FLARE-direct: (a) retrieve with the question; (b) look one sentence ahead; (c) if a token is
    uncertain, (d) retrieve with the sentence, uncertain tokens masked, and (e) write it again;
    (f) keep it; until the answer.

    Its trace: ``retrieve`` steps (:class:`FLARERetrieve`), a ``reason`` step per sentence
    generated (:class:`FLARELookAhead`) and an ``extract`` step (:class:`FLAREExtract`).
    """

    name = "flare"

    def __init__(self, llm: LLM, retriever: Retriever, config: FLAREConfig = FLAREConfig(),
                 demonstrations: Sequence[str] = (), splitter: SentenceSplitter | None = None) -> None:
        require(llm, TOKEN_SCORING, purpose="FLARE's check of each look-ahead sentence")
        self.llm = llm
        self.retriever = retriever
        self.config = config
        self.fitter = DemonstrationFitter(llm, demonstrations)
        self.splitter = splitter or SyntokSplitter()

    def generate(self, query: Query) -> GenerationResult:
        gathered, queries = Gathered(), [query.text]
        paragraphs, parent = self._retrieve(query.text, "question", (), gathered, None)                  # (a)
        sentences: list[str] = []
        for _ in range(self.config.max_sentences):
            prompt = self._prompt(query.text, paragraphs, sentences)
            sentence, generation = self._look_ahead(prompt)                                                # (b)
            if not sentence:
                break
            scores = self._check(prompt, sentence)
            lowest = min(scores.probabilities) if scores.logprobs else 1.0
            uncertain = lowest < self.config.theta                                                        # (c)
            parent = record(FLARELookAhead(sentence=sentence.strip(), lowest_probability=lowest, uncertain=uncertain,
                                           generation=generation), parent=parent,
                            paragraph_ids=[p.id for p in paragraphs])
            if uncertain:
                search, masked = masked_query(scores, self.config.beta)                                   # (d)
                search = search or query.text
                queries.append(search)
                paragraphs, parent = self._retrieve(search, "uncertain_sentence", masked, gathered, parent)
                prompt = self._prompt(query.text, paragraphs, sentences)
                sentence, generation = self._look_ahead(prompt)                                            # (e)
                parent = record(FLARELookAhead(sentence=sentence.strip(), regenerated=True, generation=generation),
                                parent=parent, paragraph_ids=[p.id for p in paragraphs])
                if not sentence:
                    break
            sentences.append(sentence.strip())                                                            # (f)
            if ANSWER_PATTERN.match(sentence.strip()):
                break
        cot = " ".join(sentences)
        answer = extract_answer(cot)
        record(FLAREExtract(cot=cot, answer=answer), parent=parent)
        return GenerationResult(
            text=answer,
            chunk_ids=gathered.ids,
            metadata=FLARESummary(sentences=tuple(sentences), retrievals=len(queries), queries=tuple(queries),
                                  retrieved_titles=gathered.titles),
        )

    def _retrieve(self, search: str, reason: RetrievalReason, masked: tuple[str, ...], gathered: Gathered,
                  parent: int | None) -> tuple[list[Paragraph], int | None]:
        hits = self.retriever.retrieve(search, self.config.k)
        paragraphs = [hit.paragraph for hit in hits]
        gathered.add(paragraphs)
        step = record(FLARERetrieve(query=search, reason=reason, masked=masked, k=self.config.k), parent=parent,
                      paragraph_ids=[hit.id for hit in hits], scores=[float(hit.score) for hit in hits])
        return paragraphs, step

    def _prompt(self, question: str, paragraphs: Sequence[Paragraph], sentences: Sequence[str]) -> str:
        return self.fitter.prompt(test_block(paragraphs, question, " ".join(sentences)),
                                  reserve=self.config.look_ahead_tokens)

    def _look_ahead(self, prompt: str) -> tuple[str, str]:
        """The first sentence of what the model writes next, with the whitespace before it, and the
        whole generation."""
        with usage_component("flare:look-ahead"):
            generation = self.llm.complete(prompt, stop=["\n"], max_tokens=self.config.look_ahead_tokens,
                                           temperature=0.0).text
        first = self.splitter.first(generation)
        if not first:
            return "", generation
        end = generation.find(first) + len(first)
        return generation[:end], generation

    def _check(self, prompt: str, sentence: str) -> TokenScores:
        scoring: TokenScoringLLM = self.llm  # type: ignore[assignment]  # required in __init__
        with usage_component("flare:check"):
            return scoring.score_tokens(prompt, sentence)
