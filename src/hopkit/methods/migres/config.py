"""MIGRES's options (:class:`MIGRESConfig`): the paper's multi-hop settings (Table 11) and the authors'
code's rules, each with what the campaign's saved runs did where a rule was added later."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Mapping

from annotated_types import Interval

from hopkit.judges.factory import judge_spec
from hopkit.methods.migres.demonstrations import Task
from hopkit.options import ADDED_AFTER_FIRST_RUNS, NonNegativeInt, PositiveInt, check_fields, fixed_after_runs

JudgeOption = str | Mapping[str, Any]
AnswerFormat = Literal["span", "yes_no"]
NoNewQueries = Literal["ask_question", "last_main"]
LastMain = Literal["after_iterations", "iteration_t"]
Unreadable = Literal["carry_on", "last_main"]
CitedUse = Literal["new_facts", "kept_facts"]


@dataclass(frozen=True)
class MIGRESConfig:
    """Options of MIGRES; defaults are the paper's for multi-hop QA (Table 11).

    Attributes:
        max_iterations: T, Main Module calls with the iteration instruction at most (Table 11: 5
            multi-hop and StrategyQA, 3 open-domain QA); see ``last_main`` for the last call.
        relevance_threshold: δ, in the reranker's own scale (Table 11: 3.0 multi-hop, 5.0
            ODQA, 0.0 StrategyQA with the BGE reranker's logits; Table 6 uses 1.0). For
            another reranker choose it by the paper's rule, see docs/migres.md.
        hits_per_query: passages BM25 retrieves per query (Table 11: 50).
        rerank_top: score only the best this many BM25 hits of each query with the
            relevance judge and drop the rest unscored; None (default) scores every hit, as
            the paper. A cost lever that departs from the paper (docs/migres.md); in the
            run's identity only when set.
        passages_per_leaf_call: most passages given to the Leaf Module at once, best
            first (Table 11's k: 5); the rest of a round's knowledge is not read.
        max_new_queries: most queries the Query Generator may add per round (Section 3.2: 3).
        knowledge_prompting: ask the model for its own knowledge when no passage passes
            the filter (Section 3.2; False: Table 6's "w/o GPT knowledge").
        sentence_filter: sentence-level filtering (False: Table 5's "w/o Sentence Filtering").
        nli_check: drop extracted facts their cited passages do not entail (Section 3.2).
        entailment_threshold: the probability from which the entailment judge counts a
            cited passage as entailing the fact.
        max_passage_uses: uses after which the Memory Module no longer gives a passage
            to the Leaf Module (2, the authors' code: "a passage used twice").
        reuse_main_without_new_information: when no fact was learnt since the last Main
            call, reuse its verdict rather than ask again (the authors' code).
        min_confidence: the least confidence (1-5) at which an answer before the last
            iteration ends the loop (1: any answer, as the authors' code).
        answer_format: "span", or "yes_no" for StrategyQA (Table 17's caption): the Main
            Module's yes/no instruction, and answers normalised to "yes"/"no".
        few_shot: put the authors' demonstrations in every module's prompt (MIGRES*), read from
            ``$HOPKIT_DATA_DIR/migres/``.
        demonstration_set: whose demonstrations: "multihop", "odqa" or "commonsense".
        reranker: the relevance judge (``llm``, or a mapping such as
            ``{kind: cross-encoder, model: cross-encoder/ms-marco-MiniLM-L-6-v2}``).
        nli: the entailment judge (``llm``, or a mapping such as
            ``{kind: nli, model: cross-encoder/nli-deberta-v3-small}``).
        max_tokens: most tokens per model response.
        relation_hints: a question naming a grandparent relation ("maternal grandmother" and
            three more) starts with that relation's definition as known information (the authors'
            code; False: known information starts empty, as the campaign's saved runs did).
        min_snippet_words: a passage or LLM knowledge of fewer space-separated words is not shown
            to the Leaf Module (the authors' 5; 0 shows every one, as the saved runs did).
        drop_knowledge_refusals: LLM knowledge containing the authors' refusal strings ("sorry",
            "2022", ...) is not shown to the Leaf Module (False: kept, as the saved runs did).
        second_search: when BM25 returns fewer than ``hits_per_query`` hits, search again with
            "Find information about " before the query and take that search's hits (the authors'
            code; False: no second search, as the saved runs did).
        no_new_queries: when the Query Generator asks nothing new, "ask_question" retrieves with
            the original question again (the authors' code); "last_main" makes the next Main
            call the last (as the saved runs did).
        last_main: "after_iterations": ``max_iterations`` Main calls with the iteration
            instruction, each followed by a round of queries, then one more with the last
            instruction (the authors' code); "iteration_t": the ``max_iterations``-th call is the
            last, one round fewer (as the saved runs did).
        min_missing_information_chars: when the Main Module's missing information is shorter
            than this, its explanation goes to the Query Generator instead (the authors' 10;
            1: only when it is blank, as the saved runs did).
        unreadable: a Leaf or Query response still unreadable after the one request to correct
            it: "carry_on" reads it as the authors' code does, no facts from the Leaf Module and no
            new query from the Query Generator (``no_new_queries`` then applies); "last_main"
            makes the next Main call the last (as the saved runs did). An unreadable Main
            response always makes the next call the last.
        min_query_chars: a generated query of fewer characters is not asked (the authors' code
            keeps a line of more than 10, so 11; 0 keeps every one, as the saved runs did).
        cited_use: a passage cited by the Leaf Module's information is used once more when that
            information is new to the known information ("new_facts", the authors' code) or
            whenever it passed the checks ("kept_facts": facts already known too, as the saved
            runs did).
        knowledge_title_none: LLM knowledge is shown to the Leaf Module as "Passage i: (Title:
            None) text", as the authors' code writes it (False: "Passage i: text", as the saved
            runs did).
    """

    max_iterations: PositiveInt = 5
    relevance_threshold: float = 3.0
    hits_per_query: PositiveInt = 50
    rerank_top: PositiveInt | None = field(default=None, metadata=ADDED_AFTER_FIRST_RUNS)
    passages_per_leaf_call: PositiveInt = 5
    max_new_queries: Annotated[int, Interval(ge=1, le=10)] = 3
    knowledge_prompting: bool = True
    sentence_filter: bool = True
    nli_check: bool = True
    entailment_threshold: Annotated[float, Interval(ge=0, le=1)] = 0.5
    max_passage_uses: PositiveInt = 2
    reuse_main_without_new_information: bool = True
    min_confidence: Annotated[int, Interval(ge=1, le=5)] = 1
    answer_format: AnswerFormat = "span"
    few_shot: bool = False
    demonstration_set: Task = "multihop"
    reranker: JudgeOption = "llm"
    nli: JudgeOption = "llm"
    max_tokens: PositiveInt = 300
    relation_hints: bool = field(default=True, metadata=fixed_after_runs(False))
    min_snippet_words: NonNegativeInt = field(default=5, metadata=fixed_after_runs(0))
    drop_knowledge_refusals: bool = field(default=True, metadata=fixed_after_runs(False))
    second_search: bool = field(default=True, metadata=fixed_after_runs(False))
    no_new_queries: NoNewQueries = field(default="ask_question", metadata=fixed_after_runs("last_main"))
    last_main: LastMain = field(default="after_iterations", metadata=fixed_after_runs("iteration_t"))
    min_missing_information_chars: PositiveInt = field(default=10, metadata=fixed_after_runs(1))
    unreadable: Unreadable = field(default="carry_on", metadata=fixed_after_runs("last_main"))
    min_query_chars: NonNegativeInt = field(default=11, metadata=fixed_after_runs(0))
    cited_use: CitedUse = field(default="new_facts", metadata=fixed_after_runs("kept_facts"))
    knowledge_title_none: bool = field(default=True, metadata=fixed_after_runs(False))

    @property
    def main_calls(self) -> int:
        """Main Module calls at most, the last one's included."""
        return self.max_iterations + (1 if self.last_main == "after_iterations" else 0)

    def __post_init__(self) -> None:
        check_fields(self, "MIGRES option")  # types and ranges, as annotated above
        judge_spec("relevance", self.reranker, option="reranker")
        judge_spec("entailment", self.nli, option="nli")
