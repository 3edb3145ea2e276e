"""IRCoT: interleaving retrieval with chain-of-thought reasoning (Trivedi et al., ACL 2023).

Algorithm (Section 3.1 and Fig. 2; Appendix B for IIRC; Section 3.2 for the reader)::

    (i)  IIRC only: the model writes page titles from the main passage and the question;
         they are mapped to corpus titles and every retrieval below is restricted to
         those pages. The main passage is always shown to the model.
    (a)  P <- retrieve(Q, K)                           the question is the first query
         CoT <- []
         for step = 1 .. max_steps:
    (b)      s <- first sentence of LLM(demonstrations, P, Q, CoT)   greedy, stops at newline
    (c)      stop if s is empty; CoT <- CoT + [s]; stop if s contains "answer is:"
             stop if step = max_steps
    (d)      q <- last non-reasoning sentence of CoT, without wh-words
             P <- P + retrieve(q, K, excluding P)       skipped when q is empty
    (e)  answer <- reader(P, Q)                        direct, CoT, or "none": taken from CoT;
                                                       see hopkit.methods.ircot.reading

P is a :class:`ParagraphCollection`: duplicates and near-duplicates are skipped, so
are paragraphs over 600 words, and once ``paragraph_budget`` (15) paragraphs are
held nothing more is added (the earliest are kept).

Prompts. With demonstrations (the authors' files, see ``hopkit.prompts.ircot_files``)
the prompt is laid out as the authors' code lays it out, and so that consecutive steps
share their prefix (llama.cpp reuses the cached prefix)::

    <demonstration>\\n\\n\\n ... <demonstration>\\n\\n\\n
    Wikipedia Title: <title>\\n<text>\\n\\n ...     (main passage, then P in collection order)
    Q: <question_prefix><question>\\nA: <CoT so far>

The demonstrations are chosen once per question, against the largest prompt that
question can reach (a full budget and a long CoT), so their number never changes
between its steps; only if a step's prompt would still overflow are more dropped.
Without demonstrations the zero-shot templates of the documentation page are used.

Trace. Every step above is recorded in the question's typed trace (``hopkit.traces``):
what each retrieval returned and what the collection kept or dropped and why, each
sentence with the model's whole line, and the reading; see ``hopkit.methods.ircot.steps``.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Sequence

from hopkit.errors import ConfigError
from hopkit.judges.sentences import SentenceSplitter, SyntokSplitter, first_sentence_settled
from hopkit.llm.early_stop import complete_until
from hopkit.llm.protocol import LLM, Completion
from hopkit.methods.context import with_main_passage
from hopkit.methods.ircot.config import IRCoTConfig
from hopkit.methods.ircot.iirc import IIRCTitleScoper, TitleMatcher, TitleScope
from hopkit.methods.ircot.query import next_query
from hopkit.methods.ircot.steps import (IRCoTSummary, StopReason, record_reading, record_reasoning,
                                        record_retrieval, record_scope, record_skipped_retrieval)
from hopkit.methods.protocol import WarmsUp, warm_up
from hopkit.methods.paragraph_collection import ParagraphCollection
from hopkit.methods.prompting import DemonstrationFitter, check_fits, fits, fitted
from hopkit.methods.ircot.reading import IRCoTReading
from hopkit.prompts.ircot_templates import DEFAULT_REASONING_TEMPLATE, render_template
from hopkit.prompts.layout import PARAGRAPH_WORD_LIMIT, render_paragraph, test_block
from hopkit.records import GenerationResult, Paragraph, Query
from hopkit.retrieval.protocol import Retriever
from hopkit.methods.ircot.parts import PARTS

logger = logging.getLogger(__name__)

REASONING_STOP = ("\n",)
# Stands for a paragraph not retrieved yet when sizing the largest prompt of a question
# whose first retrieval found nothing: as many words as a prompt shows of a paragraph.
_PLACEHOLDER = Paragraph(id=-1, title="placeholder", text=" ".join(["word"] * PARAGRAPH_WORD_LIMIT))


class _StablePrefix:
    """The demonstrations of one question's reasoning prompts, kept fixed across its steps.

    Sizes are in the model's tokens. The count is fitted once against the largest prompt
    the question can reach; a step that still overflows refits once against what its
    prompt can still grow to, so a question drops demonstrations at most rarely (each
    drop makes the model evaluate every token after the dropped one again).
    """

    def __init__(self, llm: LLM, fitter: DemonstrationFitter, generation_tokens: int) -> None:
        self.llm = llm
        self.fitter = fitter
        self.generation_tokens = generation_tokens
        self.kept = 0

    def fit(self, largest_instance_tokens: int) -> None:
        """Keep as many demonstrations as fit before an instance of ``largest_instance_tokens``,
        with room for a CoT so far and a new generation (each ``generation_tokens`` long)."""
        self.kept = self.fitter.count_fitting(largest_instance_tokens, reserve=2 * self.generation_tokens)

    def prompt(self, instance: str, growth_tokens: int) -> str:
        """The kept demonstrations then ``instance``; more are dropped only if it overflows,
        then leaving room for ``growth_tokens`` more paragraph tokens in later steps.

        Raises:
            LLMError: if ``instance`` alone does not fit in the model's context.
        """
        prompt = self.fitter.join(self.kept, instance)
        if fits(self.llm, self.llm.count_tokens(prompt), self.generation_tokens):
            return prompt
        instance_tokens = self.llm.count_tokens(instance)
        check_fits(self.llm, instance_tokens, self.generation_tokens)
        refit = self.fitter.count_fitting(instance_tokens + growth_tokens, reserve=2 * self.generation_tokens)
        self.kept = min(self.kept - 1, refit)
        while self.kept > 0 and not fits(self.llm, self.llm.count_tokens(self.fitter.join(self.kept, instance)),
                                         self.generation_tokens):
            self.kept -= 1
        logger.info("IRCoT prompt overflowed its estimate; now %d demonstrations", self.kept)
        return self.fitter.join(self.kept, instance)


class IRCoT(WarmsUp):
    """Interleaved retrieval and chain of thought; see the module docstring for the algorithm.

    Args:
        llm: the model for reasoning, reading and (IIRC) titles.
        retriever: the base retriever (BM25 in the paper).
        config: the options.
        demonstrations: reasoning demonstrations (a ``*_cot_qa_*`` file); empty = zero-shot.
        reader_demonstrations: reader demonstrations (``*_cot_qa_*`` or ``*_direct_qa_*``
            with the same M as ``demonstrations``).
        title_matcher: maps generated titles to corpus titles; with it, questions that
            have a main passage get IIRC's handling.
        title_demonstrations: IIRC title-generation demonstrations.
        splitter: sentence splitter (default: syntok).

    Raises:
        ConfigError: if both a reasoning template and demonstrations are given.
    """

    name = "ircot"

    def __init__(self, llm: LLM, retriever: Retriever, config: IRCoTConfig = IRCoTConfig(),
                 demonstrations: Sequence[str] = (), reader_demonstrations: Sequence[str] = (), *,
                 title_matcher: TitleMatcher | None = None, title_demonstrations: Sequence[str] = (),
                 splitter: SentenceSplitter | None = None) -> None:
        self.llm = llm
        self.retriever = retriever
        self.config = config
        demonstrations = demonstrations[:config.max_demonstrations]
        reader_demonstrations = reader_demonstrations[:config.max_demonstrations]
        self.fitter = DemonstrationFitter(llm, demonstrations)
        if config.reasoning_prompt_template is not None and self.fitter.demonstrations:
            raise ConfigError("IRCoT: give either 'reasoning_prompt_template' (zero-shot) or demonstrations "
                              "(few-shot), not both")
        self.few_shot = bool(self.fitter.demonstrations)
        self.splitter: SentenceSplitter = splitter if splitter is not None else SyntokSplitter()
        self.reading = IRCoTReading(llm, config, reader_demonstrations, self.fitter.demonstrations, self.splitter)
        self.title_scoper = (IIRCTitleScoper(llm, title_matcher, config.iirc, title_demonstrations)
                             if title_matcher is not None else None)

    def build_heavy_parts(self) -> None:  # IIRC's title index, when the title matcher builds one
        warm_up(self.title_scoper.matcher if self.title_scoper is not None else None)

    def generate(self, query: Query) -> GenerationResult:
        """Answer one question with IRCoT.

        Returns:
            The answer; ``chunk_ids`` are the collected paragraph ids in collection
            order; ``metadata`` its :class:`~hopkit.methods.ircot.steps.IRCoTSummary`: steps,
            cot_sentences, chunk_ids, queries, stop_reason ("answer" | "empty" | "max_steps"),
            reader_generation, the demonstrations kept per step, and for IIRC the generated and
            mapped titles.

        Raises:
            LLMError: if a prompt does not fit in the model's context even without
                demonstrations.
        """
        config = self.config  # IIRC's title matcher builds its index on first use if warm_up() was not called
        scope = self._scope(query)                                                     # (i)
        if scope is not None:
            record_scope(query.text, scope)
        titles = scope.titles if scope is not None and scope.titles else None
        collection = ParagraphCollection(config.paragraph_budget, config.max_paragraph_words,
                                         config.near_duplicate_threshold)
        queries: list[str] = []
        self._retrieve(next_query(query.text, ()), query, collection, titles, queries)  # (a)
        prefix = _StablePrefix(self.llm, self.fitter, config.generation_max_tokens)
        if self.few_shot:
            prefix.fit(self._largest_instance_tokens(query, collection))
        sentences: list[str] = []
        demonstrations_per_step: list[int] = []
        stop_reason: StopReason = "max_steps"
        steps = 0
        for step in range(1, config.max_steps + 1):
            steps = step
            prompt = self._reasoning_prompt(prefix, query, collection, sentences)           # (b)
            demonstrations_per_step.append(prefix.kept)
            generation = self._continue_cot(prompt)
            found = self.splitter.split(generation)
            stop = self._stop(found, step)                                              # (c)
            record_reasoning(with_main_passage(query, collection.paragraphs), found[0] if found else "",
                             generation, prefix.kept, stop)
            if found:
                sentences.append(found[0])
            if stop is not None:
                stop_reason = stop
                break
            self._retrieve(next_query(query.text, sentences), query, collection, titles, queries)  # (d)
        with PARTS.call("read"):
            answer, reader_generation = self.reading.answer(query, collection.paragraphs, sentences,  # (e)
                                                            partial(prefix.prompt, growth_tokens=0))
        record_reading(query.text, sentences, with_main_passage(query, collection.paragraphs), answer,
                       reader_generation, config.reader, self.reading.context)
        summary = IRCoTSummary(steps=steps, cot_sentences=tuple(sentences), chunk_ids=tuple(collection.ids),
                               queries=tuple(queries), stop_reason=stop_reason, reader_generation=reader_generation,
                               retrieved_titles=tuple(p.title for p in collection.paragraphs),
                               demonstrations=tuple(demonstrations_per_step),
                               iirc_generated_titles=scope.generated if scope is not None else None,
                               iirc_titles=scope.titles if scope is not None else None)
        return GenerationResult(text=answer, chunk_ids=collection.ids, metadata=summary)

    def _stop(self, found: Sequence[str], step: int) -> StopReason | None:
        """Why the loop ends at ``step``, whose generation split into ``found`` (None: it goes on)."""
        if not found:
            return "empty"
        if self.config.stop_sequence.lower() in found[0].lower():
            return "answer"
        return "max_steps" if step == self.config.max_steps else None

    def _continue_cot(self, prompt: str) -> str:
        """The model's continuation of the CoT up to the end of its line (greedy).

        A model that opens with a line break (small instruct models do, after a
        zero-shot template) is asked once more for the line after it; one that writes
        nothing at all ends the loop.
        """
        completion = self._generate_first_sentence(prompt)
        if not completion.text.strip() and completion.completion_tokens > 0:
            completion = self._generate_first_sentence(prompt + "\n")
        return completion.text.strip()

    def _generate_first_sentence(self, prompt: str) -> Completion:
        """Generate to the end of the line, or less where the backend can stop once the first sentence is settled."""
        prompt = fitted(self.llm, prompt, self.config.generation_max_tokens)
        with PARTS.call("reason"):
            return complete_until(self.llm, prompt, partial(first_sentence_settled, self.splitter),
                                  stop=REASONING_STOP, max_tokens=self.config.generation_max_tokens, temperature=0.0)

    def _scope(self, query: Query) -> TitleScope | None:
        """IIRC (Appendix B): the pages later retrieval is restricted to."""
        if query.main_passage is None or self.title_scoper is None:
            return None
        scope = self.title_scoper.scope(query.text, query.main_passage)
        if not scope.titles:
            logger.warning("question %s: no generated title matched a corpus title (%r); retrieving "
                           "from the whole corpus", query.id, scope.generation)
        return scope

    def _retrieve(self, text: str, query: Query, collection: ParagraphCollection,
                  titles: tuple[str, ...] | None, queries: list[str]) -> None:
        """Retrieve K paragraphs for ``text`` into ``collection`` (nothing for an empty
        query, nor once the budget is full, when nothing could be added)."""
        k = self.config.k_per_step
        if not text or collection.is_full:
            record_skipped_retrieval(text, "budget_full" if text else "empty_query", k)
            return
        queries.append(text)
        exclude = set(collection.ids) if self.config.exclude_collected else set()
        if query.main_passage is not None:
            exclude.add(query.main_passage.id)
        hits = self.retriever.retrieve(text, k, exclude=exclude, titles=titles)
        record_retrieval(text, hits, collection.add_each(hit.paragraph for hit in hits), k)

    def _instance(self, query: Query, paragraphs: Sequence[Paragraph], sentences: Sequence[str]) -> str:
        """The test instance of the few-shot layout: paragraphs, question, CoT so far."""
        question = f"{self.config.question_prefix}{query.text.strip()}"
        return test_block(with_main_passage(query, paragraphs), question, " ".join(sentences))

    def _block_tokens(self, paragraphs: Sequence[Paragraph]) -> int:
        """The mean size in tokens of a paragraph block of ``paragraphs`` (a paragraph as long
        as a prompt shows at most when there are none yet)."""
        blocks = paragraphs or [_PLACEHOLDER]
        return sum(self.llm.count_tokens(render_paragraph(p) + "\n\n") for p in blocks) // len(blocks)

    def _growth_tokens(self, collection: ParagraphCollection) -> int:
        """What the paragraphs may still add to the prompt: the rest of the budget, each as
        long as the mean of those collected.

        The mean, not the longest: one long paragraph in the first retrieval would
        otherwise leave no room for demonstrations in a small context.
        """
        remaining = self.config.paragraph_budget - len(collection.paragraphs)
        return remaining * self._block_tokens(collection.paragraphs)

    def _largest_instance_tokens(self, query: Query, collection: ParagraphCollection) -> int:
        """The size of the instance once the budget is filled (see :meth:`_growth_tokens`)."""
        return (self.llm.count_tokens(self._instance(query, collection.paragraphs, ()))
                + self._growth_tokens(collection))

    def _reasoning_prompt(self, prefix: _StablePrefix, query: Query, collection: ParagraphCollection,
                          sentences: Sequence[str]) -> str:
        if self.few_shot:
            return prefix.prompt(self._instance(query, collection.paragraphs, sentences),
                                 self._growth_tokens(collection))
        template = self.config.reasoning_prompt_template or DEFAULT_REASONING_TEMPLATE
        return render_template(template, query=query.text.strip(),
                               paragraphs=with_main_passage(query, collection.paragraphs),
                               word_limit=PARAGRAPH_WORD_LIMIT, cot_history=sentences)
