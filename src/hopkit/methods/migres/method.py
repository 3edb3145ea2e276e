"""MIGRES: missing-information guided retrieve-extraction-solving (Wang et al. 2024).

Algorithm (Section 3.1, Figure 1; settings from Table 11)::

    (a)  Memory <- {definitions of the grandparent relations  the question is the first query;
                    q names}; queries <- [q]                   the relations as in the authors' code
    (b)  for each query: K <- BM25(query, 50); with fewer     Retriever (the second search: the
             than 50 hits, BM25("Find information about "     authors' search_engine.py)
             + query, 50) instead
    (c)      K <- passages with relevance >= δ, then their     Knowledge Filter
                 sentences >= δ unless the passage outscores each of its sentences;
                 passages used twice (Memory) are not given again
    (d)  if K is empty: K <- LLM knowledge about the query    LLM knowledge prompting (Table 15),
                 unless it is a refusal                        refusals as the authors' code drops them
    (e)  I' <- Leaf(top 5 of K, snippets under 5 words        Leaf Module
                 skipped, queries), each fact citing
                 the passages that support it
    (f)  I <- I + {i in I' : its cited passages entail i}     NLI check; Memory drops known facts
         for t = 1 .. T + 1:
    (g)      answer, confidence, I_miss <- Main(I, q)         Main Module (at t = T + 1: may answer
                                                              from the model's own knowledge)
    (h)      stop if an answer was given or t = T + 1
    (i)      queries <- at most 3 new queries for I_miss       Query Generator; Memory drops
                 (the explanation when I_miss is under         those asked before
                 10 characters), none asked before;
                 none left: the question again
             (b)-(f) with these queries

A response the model writes that cannot be read is asked once more; if it still cannot
be read the step is recorded as failed with its raw text and the loop goes straight to
the last iteration, so the question still gets an answer. While no new fact was learnt since the last
Main call, its verdict is reused instead of asking again (the authors' code).

The options ``relation_hints``, ``min_snippet_words``, ``drop_knowledge_refusals``,
``second_search``, ``no_new_queries``, ``last_main`` and ``min_missing_information_chars``
default to the authors' code; their other values are what the campaign's saved runs did
(``hopkit/campaign/saved_run_pins.yaml``).

Judges: the reranker of (c) is a relevance judge and the NLI check of (f) an entailment
judge (:mod:`hopkit.judges`), given as config options (``reranker: llm``,
``{kind: cross-encoder, model: ...}``); δ is in the reranker's own scale (docs/migres.md).

Trace: every step above is recorded in the question's typed trace; see
:mod:`hopkit.methods.migres.steps`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Hashable, Sequence

from hopkit.errors import ConfigError
from hopkit.judges.factory import entailment_judge, relevance_judge
from hopkit.judges.protocol import EntailmentJudge, RelevanceJudge
from hopkit.judges.sentences import SentenceSplitter, SyntokSplitter
from hopkit.llm.protocol import LLM
from hopkit.methods.migres.config import MIGRESConfig
from hopkit.methods.migres.filter import Knowledge, KnowledgeFilter
from hopkit.methods.protocol import WarmsUp
from hopkit.methods.migres.memory import Memory
from hopkit.methods.migres.knowledge_rules import SECOND_SEARCH_PREFIX, is_refusal, relation_hints, too_short
from hopkit.methods.migres.modules import Asked, MIGRESModules
from hopkit.methods.migres.responses import LeafFact, MainVerdict
from hopkit.methods.migres.steps import (MIGRESSummary, StopReason, record_citation, record_failure, record_knowledge,
                                         record_leaf, record_main, record_queries, record_retrieval,
                                         record_verification)
from hopkit.parsing import clean_direct_answer
from hopkit.methods.migres.demonstrations import MIGRESDemonstrations
from hopkit.records import GenerationResult, Query
from hopkit.retrieval.protocol import Retriever

_KEPT = ("learnt", "already_known")  # outcomes of an extracted fact that passed the checks


@dataclass
class _Question:
    """One question's state: its memory, where the loop is, and what it found."""

    text: str
    memory: Memory
    modules: MIGRESModules              # its own, so its call counts are the question's
    last_step: int | None = None
    iterations: int = 0
    ending: StopReason | None = None    # why the next iteration is the last (a failure, nothing new to ask)
    verdict: MainVerdict | None = None  # the last Main verdict
    facts_at_verdict: int = -1
    answer: str = ""
    confidence: int | None = None
    used: list[int] = field(default_factory=list)  # corpus passages given to the Leaf Module, in order
    knowledge_prompts: int = 0
    reranked: int = 0                   # passages the relevance judge scored


class MIGRES(WarmsUp):
    """Missing-information guided retrieval; see the module docstring for the algorithm.

    Args:
        llm: the model of every module (greedy decoding).
        retriever: the base retriever (BM25 with k1=0.9, b=0.4 in the paper).
        config: the options.
        demonstrations: the authors' demonstrations (needed when ``config.few_shot``).
        reranker: the relevance judge; None builds ``config.reranker`` on ``llm``.
        nli: the entailment judge; None builds ``config.nli`` on ``llm`` (unless the NLI
            check is off).
        splitter: the sentence splitter of the sentence-level filter (default syntok).

    Raises:
        ConfigError: few-shot without demonstrations; from :meth:`warm_up`, a judge that cannot be built.
        LLMError: from :meth:`warm_up`, an LLM judge on a model without the "scoring" capability.
    """

    name = "migres"

    def __init__(self, llm: LLM, retriever: Retriever, config: MIGRESConfig = MIGRESConfig(),
                 demonstrations: MIGRESDemonstrations | None = None, *, reranker: RelevanceJudge | None = None,
                 nli: EntailmentJudge | None = None, splitter: SentenceSplitter | None = None) -> None:
        if config.few_shot and demonstrations is None:
            raise ConfigError("MIGRES option few_shot=true needs the authors' demonstrations "
                              "(hopkit.methods.migres.demonstrations.load_migres_demonstrations)")
        self.llm = llm
        self.retriever = retriever
        self.config = config
        self.demonstrations = demonstrations if config.few_shot else None
        self.reranker: RelevanceJudge | None = reranker
        self.nli: EntailmentJudge | None = nli if config.nli_check else None
        self.splitter: SentenceSplitter = splitter if splitter is not None else SyntokSplitter()

    def build_heavy_parts(self) -> None:
        """The judges the config names and the constructor was not given, and the Knowledge Filter."""
        config = self.config
        if self.reranker is None:
            self.reranker = relevance_judge(config.reranker, llm=self.llm, option="reranker")
        if config.nli_check and self.nli is None:
            self.nli = entailment_judge(config.nli, llm=self.llm, option="nli")
        self.filter = KnowledgeFilter(self.reranker, config.relevance_threshold, config.sentence_filter,
                                      self.splitter, config.rerank_top)

    @property
    def evidence_filter(self) -> str:
        """What to change when the Knowledge Filter keeps nothing for most questions (the runner's warning)."""
        return (f"its Knowledge Filter keeps a passage only above relevance_threshold (δ = "
                f"{self.config.relevance_threshold:g}), which is in the relevance judge's own scale: the paper's 3.0 "
                "is a BGE-reranker value, and an LLM judge needs its own δ: measure it with `hopkit calibrate migres "
                "--dataset DATASET --llm MODEL` (docs/migres.md) and set relevance_threshold in the run's config")

    def generate(self, query: Query) -> GenerationResult:
        """Answer one question with MIGRES.

        Returns:
            The answer; ``chunk_ids`` the corpus passages given to the Leaf Module, in
            order; ``metadata`` iterations, stop_reason, confidence, passages_used,
            reranked_passages (passages the relevance judge scored), knowledge_tokens,
            knowledge_prompts, queries, known_information. What each module and judge
            spent is in the question's usage record, under ``migres:<module>`` and
            ``judge:<name>``.

        Raises:
            LLMError: a prompt does not fit in the model's context, or a model call failed.
        """
        self.warm_up()
        modules = MIGRESModules(self.llm, self.demonstrations, yes_no=self.config.answer_format == "yes_no",
                                max_tokens=self.config.max_tokens)
        question = _Question(query.text.strip(), Memory(self.config.max_passage_uses), modules)
        if self.config.relation_hints:
            for hint in relation_hints(question.text):
                question.memory.learn(hint)
        first, _ = question.memory.ask([question.text])                                 # (a)
        self._retrieve_and_read(first or [question.text], question)                    # (b)-(f)
        for iteration in range(1, self.config.main_calls + 1):
            question.iterations = iteration
            final = iteration == self.config.main_calls or question.ending is not None
            verdict = self._main(question, final)                                      # (g)
            if final or (verdict is not None and self._answers(verdict)):              # (h)
                break
            if verdict is None:
                continue
            queries = self._new_queries(question, verdict)                             # (i)
            if queries:
                self._retrieve_and_read(queries, question)                             # (b)-(f)
        return self._result(question)

    def _retrieve_and_read(self, queries: Sequence[str], question: _Question) -> None:
        """Steps (b)-(f) for ``queries``: retrieve, filter, (knowledge prompting), leaf, NLI."""
        config = self.config
        best: dict[Hashable, Knowledge] = {}  # by paragraph: the best-scored of its queries
        for text in queries:
            searched = None
            hits = self.retriever.retrieve(text, config.hits_per_query)                        # (b)
            if config.second_search and len(hits) < config.hits_per_query:
                searched = SECOND_SEARCH_PREFIX + text
                hits = self.retriever.retrieve(searched, config.hits_per_query)
            kept, outcomes = self.filter.filter(text, hits, question.memory.exhausted)         # (c)
            question.last_step = record_retrieval(text, hits, outcomes, config.hits_per_query,
                                                  config.relevance_threshold, question.last_step,
                                                  rerank_top=config.rerank_top, searched=searched)
            question.reranked += sum(1 for outcome in outcomes if outcome["relevance"] is not None)
            for piece in kept:
                held = best.get(piece.memory_key)
                if held is None or (piece.relevance or 0.0) > (held.relevance or 0.0):
                    best[piece.memory_key] = piece
        knowledge = sorted(best.values(), key=lambda k: -(k.relevance or 0.0))
        if not knowledge and config.knowledge_prompting:                                      # (d)
            own = question.modules.knowledge(queries[0])
            question.knowledge_prompts += 1
            question.last_step = record_knowledge(queries[0], own, question.last_step)
            refused = config.drop_knowledge_refusals and is_refusal(own)
            if own and not refused and not question.memory.exhausted(own):
                knowledge = [Knowledge(own, queries[0])]
        knowledge = [k for k in knowledge if not too_short(k.text, config.min_snippet_words)]
        if knowledge:
            self._read(knowledge[:config.passages_per_leaf_call], question)                  # (e), (f)

    def _read(self, shown: Sequence[Knowledge], question: _Question) -> None:
        """The Leaf Module over ``shown``, then the NLI check and the memory of what was learnt."""
        memory = question.memory
        for knowledge in shown:
            memory.use(knowledge.memory_key)
            if knowledge.paragraph_id is not None and knowledge.paragraph_id not in question.used:
                question.used.append(knowledge.paragraph_id)
        leaf_question = " ".join(dict.fromkeys(k.query for k in shown))
        asked = question.modules.leaf([(k.text, self._title(k)) for k in shown], leaf_question)    # (e)
        if asked.value is None:
            question.last_step = record_failure("extract", "leaf", asked, question.last_step)
            if self.config.unreadable == "last_main":
                question.ending = "unreadable_leaf"
            return
        judged = [self._judge(fact, shown, memory) for fact in asked.value]                     # (f)
        counted = ("learnt",) if self.config.cited_use == "new_facts" else _KEPT
        cited_by_counted = {k.memory_key for outcome, cited, _ in judged if outcome["outcome"] in counted for k in cited}
        for key in cited_by_counted:  # a passage cited by new information is used once more (the authors' code)
            memory.use(key)
        leaf_step = record_leaf(leaf_question, shown, [outcome for outcome, _, _ in judged], asked.generations,
                                question.last_step)
        question.last_step = leaf_step
        for outcome, cited, probabilities in judged:
            if self.nli is not None and cited:
                record_verification(leaf_step, outcome["info"], outcome["paragraph_ids"], probabilities,
                                    outcome["outcome"] != "not_entailed", self.nli.judge_id)
            if outcome["outcome"] in _KEPT:
                record_citation(leaf_step, outcome["info"], outcome["paragraph_ids"], outcome["entailment"])

    def _title(self, knowledge: Knowledge) -> str | None:
        """The title the Leaf Module sees: the passage's, or for LLM knowledge "None" as the authors write it."""
        if knowledge.paragraph_id is None and self.config.knowledge_title_none:
            return "None"
        return knowledge.title

    def _judge(self, fact: LeafFact, shown: Sequence[Knowledge],
               memory: Memory) -> tuple[dict[str, Any], list[Knowledge], list[float]]:
        """The NLI check of one extracted fact, and the memory of it if it passes.

        Returns:
            Its outcome for the trace (``learnt``, ``already_known``, ``not_entailed`` or
            ``no_valid_support``), the knowledge it cites, and the entailment probabilities.
        """
        cited = [shown[i] for i in fact.support if 0 <= i < len(shown)]
        probabilities = self._entailment(fact.info, cited) if cited else []
        if not cited:
            fate = "no_valid_support"
        elif self.nli is not None and not any(p >= self.config.entailment_threshold for p in probabilities):
            fate = "not_entailed"
        else:
            fate = "learnt" if memory.learn(fact.info) else "already_known"
        outcome = {"info": fact.info, "support_passages": list(fact.support),
                   "paragraph_ids": [k.paragraph_id for k in cited if k.paragraph_id is not None],
                   "entailment": max(probabilities, default=None), "outcome": fate}
        return outcome, cited, probabilities

    def _entailment(self, fact: str, cited: Sequence[Knowledge]) -> list[float]:
        """P(entailed) of ``fact`` by each cited passage (none without the NLI check)."""
        if self.nli is None:
            return []
        premises = [k.text if k.title is None else f"(Title: {k.title}) {k.text}" for k in cited]
        return self.nli.entailment([(premise, fact) for premise in premises])

    def _main(self, question: _Question, final: bool) -> MainVerdict | None:
        """Step (g): the Main Module's verdict (None when it could not be read, before the last iteration)."""
        memory = question.memory
        facts = len(memory.facts)
        if (not final and self.config.reuse_main_without_new_information and question.verdict is not None
                and question.facts_at_verdict == facts):
            question.last_step = record_main(question.verdict, Asked(question.verdict, ()), question.text, facts,
                                             question.iterations, final, False, question.last_step, reused=True)
            return question.verdict
        asked = question.modules.main(memory.facts, question.text, final=final)
        if asked.value is None:
            kind = "read" if final else "reason"
            question.last_step = record_failure(kind, "final_main" if final else "main", asked, question.last_step,
                                                iteration=question.iterations)
            if final:
                question.answer = self._formatted(clean_direct_answer(asked.generations[-1]))
            else:
                question.ending = "unreadable_main"
            return None
        verdict = asked.value
        question.verdict, question.facts_at_verdict = verdict, facts
        answered = final or self._answers(verdict)
        if answered:
            question.answer, question.confidence = self._formatted(verdict.answer), verdict.confidence
        question.last_step = record_main(verdict, asked, question.text, facts, question.iterations, final, answered,
                                         question.last_step)
        return verdict

    def _answers(self, verdict: MainVerdict) -> bool:
        return not verdict.unanswerable and verdict.confidence >= self.config.min_confidence

    def _new_queries(self, question: _Question, verdict: MainVerdict) -> list[str]:
        """Step (i): at most ``max_new_queries`` queries for the missing information, none asked before."""
        memory = question.memory
        missing = verdict.wanted(self.config.min_missing_information_chars)
        asked = question.modules.queries(question.text, memory.asked, memory.facts, missing)
        if asked.value is None:
            question.last_step = record_failure("reason", "query", asked, question.last_step)
            if self.config.unreadable == "last_main":
                question.ending = "unreadable_query"
                return []
            return self._nothing_new(question)
        written = [q for q in asked.value if len(q) >= self.config.min_query_chars]
        new, repeated = memory.ask_at_most(written, self.config.max_new_queries)
        over = [q for q in written if q not in new and q not in repeated]
        question.last_step = record_queries(missing, new, repeated, over, asked.generations, question.last_step)
        return new or self._nothing_new(question)

    def _nothing_new(self, question: _Question) -> list[str]:
        """What is retrieved when the Query Generator asks nothing new (``no_new_queries``)."""
        if self.config.no_new_queries == "ask_question":
            return [question.text]  # the authors' code asks the original question again
        question.ending = "no_new_queries"
        return []

    def _formatted(self, answer: str) -> str:
        """The answer as stored: "yes"/"no" for yes/no questions when the text says which."""
        answer = answer.strip()
        if self.config.answer_format != "yes_no":
            return answer
        first = answer.casefold().lstrip("\"' ").split(" ", 1)[0].strip(".,!\"'")
        if first in ("yes", "true"):
            return "yes"
        if first in ("no", "false"):
            return "no"
        return answer

    def _result(self, question: _Question) -> GenerationResult:
        stop_reason = question.ending or ("answered" if question.iterations < self.config.main_calls
                                          else "max_iterations")
        summary = MIGRESSummary(iterations=question.iterations, stop_reason=stop_reason,
                                confidence=question.confidence, passages_used=len(question.used),
                                knowledge_tokens=question.modules.knowledge_tokens,
                                knowledge_prompts=question.knowledge_prompts, reranked_passages=question.reranked,
                                queries=tuple(question.memory.asked),
                                known_information=tuple(question.memory.facts))
        return GenerationResult(text=question.answer, chunk_ids=tuple(question.used), metadata=summary)
