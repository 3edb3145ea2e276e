"""ALCE's zero-shot readers (Gao et al., 2023) as the MIGRES paper runs them (Section 4.2, Table 3)::

    (a) H <- BM25 top-N for the question
    (b) H <- H ordered by the reranker's relevance to the question
    (c) documents:  vanilla    the top k, whole (rerank: the same)
                    vanilla-s  the top k, each cut to its relevant sentences (MIGRES's sentence filter, δ)
                    summ       in rank order, the model's summary of each, "irrelevant" dropped, until k
                    snippet    the same with the model's extraction
    (d) answer <- LLM(ALCE's instruction, the question, "Document [i](Title: T): text", "Answer:")
        rerank: n sampled answers, the first with the highest citation recall ("" when none is above 0)
    the prediction: the answer's first line without its citation marks, cleaned as a direct answer
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Mapping

from hopkit.judges.factory import entailment_judge, judge_spec, relevance_judge
from hopkit.judges.protocol import EntailmentJudge, RelevanceJudge
from hopkit.judges.sentences import SentenceSplitter, SyntokSplitter
from hopkit.llm.protocol import LLM, SAMPLING, ChatMessage, SamplingLLM
from hopkit.llm.capabilities import require
from hopkit.methods.alce.prompts import (EXTRACTION_SYSTEM, EXTRACTION_USER, SUMMARY_SYSTEM, SUMMARY_USER,
                                         IrrelevantRule, answer_prompt, is_irrelevant, without_citations)
from hopkit.methods.alce.rerank import best_sample, citation_recall
from hopkit.methods.alce.steps import ALCECondense, ALCERead, ALCERerank, ALCERetrieve, ALCESample, ALCESummary
from hopkit.methods.chat_turns import complete_turns
from hopkit.methods.migres.filter import KnowledgeFilter, shown
from hopkit.methods.prompting import fitted
from hopkit.methods.protocol import WarmsUp
from hopkit.options import ADDED_AFTER_FIRST_RUNS, NonNegativeFloat, PositiveInt, check_fields, fixed_after_runs
from hopkit.parsing.answers import clean_direct_answer, first_line
from hopkit.records import GenerationResult, Paragraph, Query, ScoredParagraph
from hopkit.retrieval.protocol import Retriever
from hopkit.traces.payload import record
from hopkit.usage import ModelCallParts

#: The parts of alce that call the model, each a column of the cost tables (``alce:<part>``).
PARTS = ModelCallParts("alce", ("answer", "citations", "condense"))

ReaderName = Literal["vanilla", "vanilla-s", "summ", "snippet", "rerank"]
_CONDENSING = {"summ": ("summary", SUMMARY_SYSTEM, SUMMARY_USER), "snippet": ("extraction", EXTRACTION_SYSTEM,
                                                                            EXTRACTION_USER)}
ANSWER_STOP = ("\n",)  # ALCE's run.py stops an answer at its first newline (its stop tokens "\n", "Ċ", "<0x0A>")


@dataclass(frozen=True)
class ALCEConfig:
    """Options of ALCE's readers.

    Attributes:
        reader: ``vanilla``: the top k whole; ``vanilla-s``: cut to their relevant sentences; ``summ``: the
            model's summaries; ``snippet``: the model's extractions; ``rerank``: the top k whole, several
            sampled answers, the one with the best citation recall (needs the ``sampling`` capability).
        hits: BM25 hits the reranker orders (MIGRES's 50).
        k: documents the answer reads (ALCE's ndoc 5).
        reranker: the relevance judge (``llm``, or ``{kind: cross-encoder, model: ...}``; the paper's
            is BGE-reranker-base).
        relevance_threshold: δ of vanilla-s's sentence filter, in the reranker's own scale (the run is warned
            when it is the BGE value with the LLM judge).
        condense_max_tokens: budget of a summary or extraction (ALCE's 100).
        max_tokens: budget of the answer.
        samples: answers RERANK samples (ALCE's 4).
        sample_temperature: their temperature (ALCE's default 0.5, top-p 1).
        entailment: RERANK's judge of citation recall: "llm" or {kind: nli, model: ...} (ALCE's is
            google/t5_xxl_true_nli_mixture).
        unsupported_answer: RERANK's answer when no sample's citation recall is above 0: "empty" (ALCE's
            ``rerank_outputs.py``) or "first", the first sample (for a model that seldom cites).
        irrelevant_rule: which summaries and extractions are dropped: those holding "irrelevant" or
            "Irrelevant" anywhere ("anywhere", ALCE's ``get_shorter_text``; an empty one is kept), or those
            empty or beginning with the word, quotes and case aside ("starts", as the saved runs did).
        none_kept: when no summary or extraction is kept, "full_text" gives the answer one document whole,
            the top-ranked (ALCE's ``get_shorter_text`` gives the first document past its condensed ones its
            full text; hopkit condenses every hit it reads, so none is left past them); "no_documents"
            answers without (as the saved runs did).
        empty_sentences: VANILLA-s, a top-k document with no sentence left at δ: "drop" it, as MIGRES's
            sentence filter drops such a passage, or "shown" with an empty text (as the saved runs did).
    """

    reader: ReaderName = "vanilla"
    hits: PositiveInt = 50
    k: PositiveInt = 5
    reranker: str | Mapping[str, Any] = "llm"
    relevance_threshold: float = 3.0
    condense_max_tokens: PositiveInt = 100
    max_tokens: PositiveInt = 300
    samples: PositiveInt = 4
    sample_temperature: NonNegativeFloat = 0.5
    entailment: str | Mapping[str, Any] = "llm"
    unsupported_answer: Literal["empty", "first"] = field(default="empty", metadata=ADDED_AFTER_FIRST_RUNS)
    irrelevant_rule: IrrelevantRule = field(default="anywhere", metadata=fixed_after_runs("starts"))
    none_kept: Literal["full_text", "no_documents"] = field(default="full_text",
                                                            metadata=fixed_after_runs("no_documents"))
    empty_sentences: Literal["drop", "shown"] = field(default="drop", metadata=fixed_after_runs("shown"))

    def __post_init__(self) -> None:
        check_fields(self, "ALCE option")
        judge_spec("entailment", self.entailment, "entailment")


class ALCE(WarmsUp):
    """ALCE's zero-shot reader: (a) retrieve; (b) rerank; (c) the documents, whole or made shorter;
    (d) an answer with citations.

    Its trace: two ``retrieve`` steps (:class:`ALCERetrieve`, :class:`ALCERerank`), a ``reason`` step
    per document made shorter (:class:`ALCECondense`) or per RERANK sample (:class:`ALCESample`) and the
    ``read`` step (:class:`ALCERead`).

    Raises:
        LLMError: RERANK with a model that cannot draw repeatable samples (``"sampling"``).
    """

    name = "alce"

    def __init__(self, llm: LLM, retriever: Retriever, config: ALCEConfig = ALCEConfig(),
                 reranker: RelevanceJudge | None = None, splitter: SentenceSplitter | None = None,
                 entailment: EntailmentJudge | None = None) -> None:
        if config.reader == "rerank":
            require(llm, SAMPLING, purpose="ALCE's RERANK (several sampled answers)")
        self.llm = llm
        self.retriever = retriever
        self.config = config
        self.reranker = reranker
        self.splitter = splitter or SyntokSplitter()
        self.entailment = entailment

    def build_heavy_parts(self) -> None:
        if self.reranker is None:
            self.reranker = relevance_judge(self.config.reranker, llm=self.llm, option="reranker")
        if self.entailment is None and self.config.reader == "rerank":
            self.entailment = entailment_judge(self.config.entailment, llm=self.llm, option="entailment")

    def generate(self, query: Query) -> GenerationResult:
        self.warm_up()
        hits = self.retriever.retrieve(query.text, self.config.hits)                                     # (a)
        parent = record(ALCERetrieve(query=query.text, k=self.config.hits), paragraph_ids=[h.id for h in hits],
                        scores=[float(h.score) for h in hits])
        ranked = self._rerank(query.text, hits)                                                          # (b)
        parent = record(ALCERerank(query=query.text), parent=parent, paragraph_ids=[h.id for h in ranked],
                        scores=[float(h.score) for h in ranked])
        chosen, texts, calls, parent = self._documents(query.text, ranked, parent)                       # (c)
        prompt = fitted(self.llm, answer_prompt(query.text, chosen, texts), self.config.max_tokens)    # (d)
        recalls: tuple[float, ...] = ()
        if self.config.reader == "rerank":
            generation, recalls, parent = self._best_of_samples(prompt, chosen, texts, parent)
        else:
            with PARTS.call("answer"):
                generation = self.llm.complete(prompt, stop=ANSWER_STOP, max_tokens=self.config.max_tokens,
                                               temperature=0.0).text.strip()
        answer = prediction(generation)
        record(ALCERead(question=query.text, answer=answer, generation=generation), parent=parent,
               paragraph_ids=[p.id for p in chosen])
        return GenerationResult(
            text=answer, chunk_ids=tuple(p.id for p in chosen),
            metadata=ALCESummary(reader=self.config.reader, generation=generation, documents=tuple(texts),
                                 condensing_calls=calls, retrieved_titles=tuple(p.title for p in chosen),
                                 citation_recalls=recalls))

    def _rerank(self, question: str, hits: list[ScoredParagraph]) -> list[ScoredParagraph]:
        assert self.reranker is not None  # built by warm_up
        scores = self.reranker.relevance(question, [shown(h.paragraph.title, h.paragraph.text) for h in hits])
        rescored = [ScoredParagraph(h.paragraph, float(s)) for h, s in zip(hits, scores)]
        return sorted(rescored, key=lambda h: -h.score)

    def _documents(self, question: str, ranked: list[ScoredParagraph],
                   parent: int | None) -> tuple[list[Paragraph], list[str], int, int | None]:
        reader, k = self.config.reader, self.config.k
        if reader in ("vanilla", "rerank"):
            top = ranked[:k]
            return [h.paragraph for h in top], [h.paragraph.text for h in top], 0, parent
        if reader == "vanilla-s":
            assert self.reranker is not None
            sentence_filter = KnowledgeFilter(self.reranker, self.config.relevance_threshold, True, self.splitter)
            chosen, texts = [], []
            for hit in ranked[:k]:
                knowledge, _ = sentence_filter.keep_sentences(question, hit, hit.score)
                kept = bool(knowledge.text.strip()) or self.config.empty_sentences == "shown"
                parent = record(ALCECondense(how="sentences", text=knowledge.text, kept=kept), parent=parent,
                                paragraph_ids=[hit.id])
                if kept:
                    chosen.append(hit.paragraph)
                    texts.append(knowledge.text)
            return chosen, texts, 0, parent
        how, system, user = _CONDENSING[reader]
        chosen, texts, calls = [], [], 0
        for hit in ranked:
            if len(chosen) == k:
                break
            text = self._condense(system, user.format(question=question, title=hit.paragraph.title,
                                                      text=hit.paragraph.text))
            calls += 1
            kept = not is_irrelevant(text, self.config.irrelevant_rule)
            parent = record(ALCECondense(how=how, text=text, kept=kept), parent=parent,  # type: ignore[arg-type]
                            paragraph_ids=[hit.id])
            if kept:
                chosen.append(hit.paragraph)
                texts.append(text)
        if not chosen and ranked and self.config.none_kept == "full_text":
            whole = ranked[0].paragraph
            chosen, texts = [whole], [whole.text]
            parent = record(ALCECondense(how="full_text", text=whole.text), parent=parent, paragraph_ids=[whole.id])
        return chosen, texts, calls, parent

    def _best_of_samples(self, prompt: str, chosen: list[Paragraph], texts: list[str],
                         parent: int | None) -> tuple[str, tuple[float, ...], int | None]:
        """RERANK: the answer sampled ``samples`` times, each scored by its citation recall over the
        documents; the first best, or when no sample cites a document that supports it "" (or the first
        sample: ``unsupported_answer``)."""
        assert self.entailment is not None  # built by warm_up
        sampler: SamplingLLM = self.llm  # type: ignore[assignment]
        documents = [(p.title, text) for p, text in zip(chosen, texts)]
        generations, recalls = [], []
        for sample in range(self.config.samples):
            with PARTS.call("answer"):
                generation = sampler.complete_sample(prompt, sample, stop=ANSWER_STOP,
                                                     max_tokens=self.config.max_tokens,
                                                     temperature=self.config.sample_temperature).text.strip()
            with PARTS.call("citations"):
                recall = citation_recall(first_line(generation), documents, self.entailment, self.splitter)
            parent = record(ALCESample(sample=sample, generation=generation, citation_recall=recall), parent=parent,
                            paragraph_ids=[p.id for p in chosen])
            generations.append(generation)
            recalls.append(recall)
        best = best_sample(recalls)
        if best is None and self.config.unsupported_answer == "first":
            best = 0
        return ("" if best is None else generations[best]), tuple(recalls), parent

    def _condense(self, system: str, user: str) -> str:
        """The model's summary or extraction: as chat turns when the model has a chat template, else the
        system line and the request as one completion prompt."""
        fitted(self.llm, f"{system}\n\n{user}", self.config.condense_max_tokens)
        with PARTS.call("condense"):
            completion = complete_turns(self.llm, [ChatMessage("system", system), ChatMessage("user", user)],
                                        plain=f"{system}\n\n{user}", max_tokens=self.config.condense_max_tokens,
                                        plain_stop=["\n\n"])
        return completion.text.strip()


def prediction(generation: str) -> str:
    """The prediction read from an answer: its first line without its citation marks, cleaned as a direct
    answer."""
    return clean_direct_answer(without_citations(first_line(generation)))
