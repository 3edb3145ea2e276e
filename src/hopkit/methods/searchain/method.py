"""SearChain: Search-in-the-Chain (Xu et al., WWW 2024).

Algorithm 1 (Section 3.3), with the steps labelled as in :meth:`SearChain.generate`::

    M <- {}  (processed queries)   R <- {}  (correct nodes)   T <- Q  (Tree-of-Reasoning)
    for r = 1 .. max_rounds:
    (a)   CoQ <- ChainGenerate(Q, F)        the model writes a whole Chain-of-Query: [Query i] /
                                            [Answer i] nodes, [Unsolved Query] where it does not
                                            know, [Final Content]; round 1 from the task's prompt,
                                            later rounds after the feedback F
    (b)   T.AddChild(CoQ)                   a new branch, kept with the node it restarted from
    (c)   F <- Traverse(CoQ): for each node (q_i, a_i) of CoQ:
              skip it if q_i repeats a query of M (normalised text, or the similarity judge)
              d_i <- Retrieval(q_i)              top-1 passage
              g, f <- Reader(q_i, d_i)           answer span and confidence
              Completion:   q_i unsolved           -> R.add(q_i, g, d_i); F <- PromptForComplete
              Verification: f > θ and g not in a_i -> R.add(q_i, g, d_i); F <- PromptForVerify
              otherwise                           R.add(q_i, a_i, d_i); go on
              M.add(q_i); the first F ends the traversal (one feedback per round)
          stop when every node passed (F = "Finish")
    (d)   Tracing(T, R): the model writes the final content from the correct path's pairs,
          with a mark [n] for each node, pointing to the passage retrieved for it

Long-form answers (ELI5) are checked against the passage by ROUGE-L >= α instead of "g in
a_i". The ablations of Table 1 switch Verification or Completion off. The rules are in
:mod:`hopkit.methods.searchain.feedback`, the tree in :mod:`hopkit.methods.searchain.tree`,
the marks in :mod:`hopkit.methods.searchain.tracing`, the trace in
:mod:`hopkit.methods.searchain.steps`, the growing prompt in
:mod:`hopkit.methods.searchain.conversation` and the prompts (verbatim) in
:mod:`hopkit.methods.searchain.prompts`.

Prompts. Decoding is greedy. The task's instruction and examples come first, the question
last; each later round appends the model's chain and the feedback to the same prompt, and
the tracing call appends the last chain and the pairs, so a prefix-caching backend
evaluates only what is new. A conversation that outgrows the context keeps its first
prompt and its latest turn. A chain that cannot be read is asked for once more; then a
failed step keeps the raw text, and the answer is taken from it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Mapping, Sequence, cast

from annotated_types import Interval

from hopkit.errors import ParseError
from hopkit.judges.factory import answer_judge, entailment_judge, judge_spec, similarity_judge
from hopkit.judges.protocol import AnswerJudge, EntailmentJudge, SimilarityJudge, SpanAnswer
from hopkit.judges.sentences import SentenceSplitter, SyntokSplitter
from hopkit.llm.protocol import LLM
from hopkit.methods.protocol import WarmsUp
from hopkit.methods.searchain.conversation import Conversation, chain_stop, read_chain
from hopkit.methods.searchain.feedback import FEEDBACK_VERDICTS, FeedbackRules, ProcessedQueries, judge_node
from hopkit.methods.searchain.steps import (SearChainSummary, StopReason, record_chain, record_extraction,
                                            record_retrieval, record_skipped, record_tracing,
                                            record_unreadable_chain, record_verdict)
from hopkit.methods.searchain.tracing import (alce_citation_scores, knowledge_coverage, render_traced,
                                              resolve_marks, statements, task_answer)
from hopkit.methods.searchain.tree import Branch, NodeRecord, PathNode, ReasoningTree
from hopkit.options import PositiveInt, check_fields, fixed_after_runs
from hopkit.parsing.answers import extract_answer
from hopkit.parsing.chain import Chain, ChainNode
from hopkit.methods.searchain.prompts import (FIRST_QUERY_CUE, TaskKind, feedback_prompt, feedback_turn,
                                              first_round_prompt, reformat_turn, tracing_turn)
from hopkit.records import GenerationResult, Paragraph, Query
from hopkit.retrieval.protocol import Retriever
from hopkit.usage import ModelCallParts

#: The parts of searchain that call the model, each a column of the cost tables (``searchain:<part>``).
PARTS = ModelCallParts("searchain", ("chain", "trace"))

JudgeOption = str | Mapping[str, Any]
DEFAULT_READER: Mapping[str, Any] = {"kind": "llm", "examples": True}
FINAL_STOP = ("\n",)
UnsolvedBy = Literal["tag", "answer"]


@dataclass(frozen=True)
class SearChainConfig:
    """Options of SearChain (defaults from the paper).

    Attributes:
        task: which first-round prompt and answer rule: "multihop" (Figure 16: HotpotQA,
            MuSiQue, 2WikiMultiHopQA, slot filling), "strategyqa" (Figure 15, yes/no),
            "fact" (Figure 13, FEVER: SUPPORTS/REFUTES) or "longform" (Figure 19, ELI5:
            verified by ROUGE-L against the passage).
        max_rounds: r_max, most rounds of interaction (5, Section 4.1.3).
        confidence_threshold: θ, above which the reader's answer corrects the model's
            (1.5 with the authors' DPR reader, Section 4.1.3 and Appendix A.4.1). In the
            reader's own scale: the LLM reader's yes/no log-odds, the extractive reader's
            no-answer margin; choose it by Appendix A.4.1's sweep (docs/searchain.md).
        rouge_threshold: α, the ROUGE-L from which a long-form answer agrees with its
            passage (0.35, Section 4.1.3; Table 10 finds 0.3 to 0.5 alike).
        verification: check answered nodes (off: "w/o Verification", Table 1).
        completion: complete unsolved nodes (off: "w/o Completion", Table 1).
        unsolved_by: which nodes are unsolved (Completion's): "tag" (the authors' server.py:
            the nodes the model marked [Unsolved Query], an answer after one or not; a [Query]
            without an answer is verified against an empty answer) or "answer" (the nodes
            without an answer line, whatever their tag; the saved runs' rule).
        reader: the answer judge reading each node's passage: {kind: llm, examples: true}
            (the default: the method's model, shown three worked examples of short spans,
            gives a span and a yes/no log-odds), "llm" (the same without the examples), or
            {kind: extractive, model: ...} with a transformers question-answering model, such
            as ``{kind: extractive, model: deepset/roberta-base-squad2}`` (the paper's kind of
            reader, Section 3.3).
        duplicate_check: the similarity judge of the duplicate-query check: "embedding"
            (the cosine of WordLlama embeddings, installed with hopkit), "lexical" (BM25
            token sets), "llm", or a mapping naming another embedder
            (``{kind: embedding, embedder: ...}``).
        duplicate_threshold: the similarity from which a query repeats a processed one.
        top_k: passages retrieved per node (1: the paper's top-1); with more, the passage
            the reader is most confident about is d_i.
        chain_max_tokens: the budget of each Chain-of-Query.
        final_max_tokens: the budget of the tracing call's final content.
        question_in_instruction: put the question in the instruction's first line as the
            figures do (default: only after the examples, so the prompt's prefix is shared).
        citation_check: score the final content's citations with ALCE's recall and
            precision (one to three entailment calls per marked sentence).
        entailment: the entailment judge of ``citation_check``: "llm" or {kind: nli, model: ...}.
    """

    task: TaskKind = "multihop"
    max_rounds: PositiveInt = 5
    confidence_threshold: float = 1.5
    rouge_threshold: Annotated[float, Interval(ge=0, le=1)] = 0.35
    verification: bool = True
    completion: bool = True
    unsolved_by: UnsolvedBy = field(default="tag", metadata=fixed_after_runs("answer"))
    reader: JudgeOption = field(default_factory=lambda: dict(DEFAULT_READER))
    duplicate_check: JudgeOption = "embedding"
    duplicate_threshold: Annotated[float, Interval(ge=0, le=1)] = 0.9
    top_k: PositiveInt = 1
    chain_max_tokens: PositiveInt = 400
    final_max_tokens: PositiveInt = 200
    question_in_instruction: bool = False
    citation_check: bool = False
    entailment: JudgeOption = "llm"

    def __post_init__(self) -> None:
        check_fields(self, "SearChain option")  # types and ranges, as annotated above
        judge_spec("answer", self.reader, "reader")
        judge_spec("similarity", self.duplicate_check, "duplicate_check")
        judge_spec("entailment", self.entailment, "entailment")

    @property
    def rules(self) -> FeedbackRules:
        """The switches and thresholds of Verification and Completion."""
        return FeedbackRules(verification=self.verification, completion=self.completion,
                             threshold=self.confidence_threshold, long_form=self.task == "longform",
                             rouge_threshold=self.rouge_threshold)


def passage_text(paragraph: Paragraph) -> str:
    """A passage as the reader and the feedback's Reference show it: its title, then its text."""
    return f"{paragraph.title}: {paragraph.text}"


@dataclass
class _Words:
    """Words into and out of the model's chain and tracing calls (Table 6's n and m)."""

    into: int = 0
    out: int = 0


class SearChain(WarmsUp):
    """Search-in-the-Chain; see the module docstring for the algorithm.

    Args:
        llm: the model writing the chains and the final content (and, for the "llm" judges,
            reading, checking duplicates and entailment).
        retriever: the retriever of each node's passage.
        config: the options.
        reader: an answer judge to use instead of building ``config.reader``.
        similarity: a similarity judge to use instead of ``config.duplicate_check``.
        entailment: an entailment judge to use instead of ``config.entailment``.
        splitter: the sentence splitter of the final content (default: syntok).

    Judges not given are built from the config on the first question (a dedicated model
    loads then, not here).
    """

    name = "searchain"

    def __init__(self, llm: LLM, retriever: Retriever, config: SearChainConfig = SearChainConfig(), *,
                 reader: AnswerJudge | None = None, similarity: SimilarityJudge | None = None,
                 entailment: EntailmentJudge | None = None, splitter: SentenceSplitter | None = None) -> None:
        self.llm = llm
        self.retriever = retriever
        self.config = config
        self.reader = reader
        self.similarity = similarity
        self.entailment = entailment
        self.splitter: SentenceSplitter = splitter if splitter is not None else SyntokSplitter()

    def generate(self, query: Query) -> GenerationResult:
        """Answer one question with SearChain.

        Returns:
            The answer; ``chunk_ids`` the passages retrieved for the processed nodes;
            ``metadata`` its :class:`~hopkit.methods.searchain.steps.SearChainSummary`: rounds,
            stop_reason ("finished", "max_rounds", "unreadable"),
            knowledge_sources (Table 2: llm, corrected, completed, unsolved), verdicts,
            words_in, words_out, final_content and traceability (marks, valid_marks, skc,
            and with ``citation_check`` citation_recall and citation_precision).

        Raises:
            LLMError: the first prompt does not fit in the model's context, or a call failed.
        """
        config = self.config
        self.warm_up()
        similarity = cast(SimilarityJudge, self.similarity)  # built by warm_up
        conversation = Conversation(self.llm, first_round_prompt(
            config.task, query.text, question_in_instruction=config.question_in_instruction))
        tree = ReasoningTree()
        processed = ProcessedQueries(similarity, config.duplicate_threshold)
        words = _Words()
        feedback: str | None = None
        parent: int | None = None
        unreadable: list[str] = []
        stop_reason: StopReason = "max_rounds"
        text = ""
        for round_ in range(1, config.max_rounds + 1):
            text, chain, step = self._write_chain(conversation, round_, feedback, parent, words, unreadable)  # (a)
            if chain is None:
                stop_reason = "unreadable"
                break
            branch = tree.add_branch(Branch(round_, text, chain, step=step))                        # (b)
            feedback = self._traverse(query.text, branch, tree, processed)                          # (c)
            if feedback is None:
                stop_reason = "finished"
                break
            if round_ < config.max_rounds:
                conversation.append(feedback_turn(text, feedback))
                restart = branch.fed_back
                parent = restart.step if restart is not None else None
        answer, final_content, traceability = self._trace(query.text, tree, conversation, text, unreadable,  # (d)
                                                          words)
        passages = list(dict.fromkeys(r.passage.id for r in tree.records if r.passage is not None))
        summary = SearChainSummary(rounds=len(tree.branches) + (1 if unreadable else 0), stop_reason=stop_reason,
                                   knowledge_sources=tree.knowledge_sources(), verdicts=tree.verdict_counts(),
                                   words_in=words.into, words_out=words.out, final_content=final_content,
                                   traceability=traceability)
        return GenerationResult(text=answer, chunk_ids=tuple(passages), metadata=summary)

    def build_heavy_parts(self) -> None:
        """The judges the config names and the constructor was not given."""
        if self.reader is None:
            self.reader = answer_judge(self.config.reader, llm=self.llm, option="reader")
        if self.similarity is None:
            self.similarity = similarity_judge(self.config.duplicate_check, llm=self.llm, option="duplicate_check")
        if self.config.citation_check and self.entailment is None:
            self.entailment = entailment_judge(self.config.entailment, llm=self.llm, option="entailment")

    def _complete(self, prompt: str, max_tokens: int, stop: Sequence[str], words: _Words, part: str) -> str:
        """The model's greedy text, its call counted as the model-call part ``part`` (:data:`PARTS`)."""
        with PARTS.call(part):
            text = self.llm.complete(prompt, stop=stop, max_tokens=max_tokens, temperature=0.0).text
        words.into += len(prompt.split())
        words.out += len(text.split())
        return text

    def _write_chain(self, conversation: Conversation, round_: int, feedback: str | None, parent: int | None,
                     words: _Words, unreadable: list[str]) -> tuple[str, Chain | None, int | None]:
        """(a) ChainGenerate: the round's chain, asked for once more if it cannot be read.

        Returns:
            The text as it continues the prompt, the parsed chain (None when unreadable twice,
            its texts then in ``unreadable``) and the ``reason`` step's id.
        """
        budget = self.config.chain_max_tokens
        cue = FIRST_QUERY_CUE if round_ == 1 else ""
        prompt = conversation.prompt(budget)
        generations: list[str] = []
        while True:
            text = self._complete(prompt, budget, chain_stop(self.config.task), words, "chain")
            generations.append(cue + text)
            try:
                chain = read_chain(cue, text)
            except ParseError as error:
                if len(generations) == 2:
                    unreadable.extend(generations)
                    return text, None, record_unreadable_chain(round_, feedback, generations, str(error), parent)
                conversation.append(reformat_turn(text))
                prompt, cue = conversation.prompt(budget), FIRST_QUERY_CUE
                continue
            return text, chain, record_chain(round_, feedback, cue + text, chain, len(generations), parent)

    def _traverse(self, question: str, branch: Branch, tree: ReasoningTree,
                  processed: ProcessedQueries) -> str | None:
        """(c) Traverse: IR on each node in order, up to the first that needs feedback.

        Returns:
            The feedback prompt of that node, or None when every node passed ("Finish").
        """
        feedback: str | None = None
        for position, node in enumerate(branch.chain.nodes, start=1):
            if feedback is not None:
                branch.resolved.append(None)
                branch.verdicts.append("not_reached")
                record_skipped(branch.round, node, position, "not_reached", branch.step)
                continue
            repeated = processed.find(node.query)
            if repeated is not None:
                earlier, score = tree.records[repeated[0]], repeated[1]
                branch.resolved.append(earlier)
                branch.verdicts.append("duplicate")
                record_skipped(branch.round, node, position, "duplicate", branch.step, duplicate_of=earlier.step,
                               similarity=score)
                continue
            record, feedback = self._process(question, node, position, branch)
            processed.add(node.query, tree.add_record(record))
            branch.resolved.append(record)
            branch.verdicts.append(record.verdict)
            if feedback is not None:
                branch.feedback_at = position - 1
        return feedback

    def _process(self, question: str, node: ChainNode, position: int, branch: Branch) -> tuple[NodeRecord, str | None]:
        """IR(q_i, a_i): retrieve the node's passage, read it, and decide (Completion, Verification)."""
        config = self.config
        hits = self.retriever.retrieve(node.query, config.top_k)
        retrieved = record_retrieval(branch.round, position, node.query, hits, config.top_k, branch.step)
        unsolved = node.unsolved if config.unsolved_by == "tag" else node.answer is None
        llm_answer = None if unsolved else node.answer or ""
        passage = hits[0].paragraph if hits else None
        reading: SpanAnswer | None = None
        if hits and self.reader is not None and ((unsolved and config.completion)
                                                 or (not unsolved and config.verification)):
            readings = self.reader.answer([(node.query, passage_text(hit.paragraph)) for hit in hits])
            best = max(range(len(hits)), key=lambda i: readings[i].confidence)
            reading, passage = readings[best], hits[best].paragraph
        verdict = judge_node(llm_answer, reading, passage_text(passage) if passage is not None else None,
                             config.rules)
        feedback = None
        if verdict in FEEDBACK_VERDICTS and reading is not None and passage is not None:
            feedback = feedback_prompt(unsolved=unsolved, query=node.query, reader_answer=reading.text,
                                       question=question.strip(), passage=passage_text(passage))
        path_answer = reading.text if feedback is not None and reading is not None else node.answer or ""
        step = record_verdict(branch.round, node, position, verdict, reading,
                              passage.id if passage is not None else None, path_answer, feedback, retrieved)
        confidence = reading.confidence if reading is not None and math.isfinite(reading.confidence) else None
        record = NodeRecord(node.query, node.answer, verdict, passage, reading.text if reading is not None else "",
                            confidence, branch.round, step)
        return record, feedback

    def _trace(self, question: str, tree: ReasoningTree, conversation: Conversation, last_text: str,
               unreadable: Sequence[str], words: _Words) -> tuple[str, str, dict[str, Any]]:
        """(d) Tracing: the final content from the correct path, its marks resolved and scored.

        The tracing prompt continues the conversation after ``last_text``, the model's latest
        chain (or, when it could not be read, its latest attempt).

        Returns:
            The answer, the final content, and the traceability scores.
        """
        task = self.config.task
        last = tree.branches[-1] if tree.branches else None
        parent = last.step if last is not None else None
        path = tree.correct_path()
        if last is None or not path:
            source, text = ("final_content", last.chain.final_content or "") if last is not None \
                else ("generation", unreadable[-1] if unreadable else "")
            answer = task_answer(task, text) if source == "final_content" else extract_answer(text)
            record_extraction(question, answer, source, text, parent)
            return answer, text, {}
        pairs = [(node.query, node.answer) for node in path]
        prompt = conversation.prompt(self.config.final_max_tokens, tracing_turn(last_text, pairs))
        generation = self._complete(prompt, self.config.final_max_tokens, FINAL_STOP, words, "trace")
        final_content = generation.strip() or (last.chain.final_content or "").split("\n")[0].strip()
        answer = task_answer(task, final_content) if final_content else ""
        if not answer:
            answer = final_content = pairs[-1][1]
        marks = resolve_marks(final_content, path)
        found = statements(final_content, path, self.splitter)
        scores: dict[str, Any] = {"marks": len(marks), "valid_marks": sum(m.valid for m in marks),
                                  "skc": knowledge_coverage(marks)}
        if self.config.citation_check and self.entailment is not None:
            recall, precision = alce_citation_scores(found, _passages(path), self.entailment)
            scores.update(citation_recall=recall, citation_precision=precision)
        record_tracing(question, answer, generation, final_content, render_traced(final_content, path), pairs,
                       marks, found, scores, parent)
        return answer, final_content, scores


def _passages(path: Sequence[PathNode]) -> dict[int, str]:
    """The text of each passage on the path, by id."""
    return {node.record.passage.id: passage_text(node.record.passage)
            for node in path if node.record is not None and node.record.passage is not None}
