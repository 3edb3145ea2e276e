"""IRCoT's options (:class:`IRCoTConfig`), read by its loop (``method.py``) and its reader (``reading.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Literal

from annotated_types import Interval

from hopkit.errors import ConfigError
from hopkit.methods.ircot.iirc import IIRCConfig
from hopkit.methods.reader import ReaderFormat, ReaderStop
from hopkit.options import ADDED_AFTER_FIRST_RUNS, PositiveInt, check_fields, fixed_after_runs
from hopkit.prompts.ircot_templates import QA_VARIABLES, REASONING_VARIABLES, check_template

ReaderChoice = Literal["cot", "direct", "none"]
ReaderContext = Literal["own", "reasoning"]


@dataclass(frozen=True)
class IRCoTConfig:
    """Options of IRCoT (names from the documentation page; defaults from the paper).

    Attributes:
        k_per_step: K, paragraphs retrieved per step (the paper tries 2, 4, 6, 8).
            ``top_k`` in the documented API is an alias the facade maps here.
        max_steps: most reasoning steps (8 in the paper).
        paragraph_budget: most paragraphs collected (15 in the paper).
        stop_sequence: a CoT sentence containing it (any case) ends the loop; not blank.
        reasoning_prompt_template: zero-shot reasoning template; it must hold ``{query}`` and may use
            ``{paragraphs}``, ``{cot_history}``; None = the authors' few-shot layout
            when demonstrations are given, else the documentation page's default.
        qa_prompt_template: zero-shot reader template; it must hold ``{query}`` and may use
            ``{paragraphs}``; None = the few-shot reader when reader demonstrations (or reasoning
            demonstrations) are given, else the documentation page's default.
        max_paragraph_words: retrieved paragraphs longer than this are skipped (600).
        generation_max_tokens: budget of each reasoning call (the authors' ~300).
        reader: "direct" (the default: the documentation page's QA template; better for
            Flan-T5, Appendix E), "cot" (the paper's choice for GPT3), or "none" (Appendix F's
            "w/o reader": the answer is extracted from the retrieval CoT with the reader's extraction).
        reader_max_tokens: budget of the reader call.
        reader_context: "own" (the paper's reader: its own demonstrations, then every collected
            paragraph, evaluated again) or "reasoning": the reader's question follows the
            reasoning prompt's demonstrations and paragraphs, which the model has just
            evaluated, so with a prefix-caching backend only the question is new. A direct
            reader there is cued with the demonstrations' closing "So the answer is:".
            Needs few-shot reasoning and the reader's few-shot prompt (no ``qa_prompt_template``).
            A CoT reader whose demonstrations are the reasoning ones reads there either way.
            "reasoning" reads about 1,000-1,300 fewer tokens per question, but was 6.7 EM lower on 90
            benchmark questions (docs/benchmarks.md, *IRCoT's reader*).
        reader_format: "completion" (the authors' text layout) or "chat": the reader's
            instruction, demonstrations and question as chat turns through the model's own
            chat template (a backend with the "chat" capability); reads in its own context, so not
            with ``reader_context: reasoning`` or a ``qa_prompt_template``. On 90 benchmark questions it
            was as good as the default (+4.4 EM, within noise) with 22% fewer tokens read
            (docs/benchmarks.md, *IRCoT's reader*).
        question_prefix: put before the question in reasoning prompts; Flan-T5 files use
            "Answer the following question by reasoning step-by-step.\\n". Must end with
            a space or newline.
        reader_question_prefix: the same for the reader ("Answer the following
            question.\\n" for Flan-T5 direct files).
        near_duplicate_threshold: rapidfuzz ratio (0-100) from which a paragraph whose
            title and text both match a collected one is a near duplicate (90).
        exclude_collected: False (the authors' code, and the paper's footnote 7: a step
            may "not even obtain all K paragraphs"): each step fetches the top K and the
            collection drops those already held. True asks the retriever to leave the
            collected paragraphs out, so each step brings K new ones.
        max_demonstrations: most demonstrations of each kind (reasoning, reader) put in a
            prompt; None = as many as fit in the context (the paper's rule). A cap keeps the
            cached prefix the same from question to question and shallower (fewer tokens
            evaluated, each cheaper), at whatever it costs a small model in quality: at 2, MuSiQue
            questions took 29% less time (2,157 against 2,757 tokens evaluated) and pooled EM on 90
            benchmark questions was 5.6 points lower, within noise (p = 0.23; docs/benchmarks.md,
            *IRCoT's demonstrations*). In the run's identity only when set.
        reader_stop: what ends the reader's generation in the authors' layout
            (:data:`~hopkit.methods.reader.READER_STOPS`): ``line`` (the authors' GPT3Generator stop) or
            ``paragraph`` (hopkit's before issue 71, the campaign's saved cells'; left out of the run's
            identity). A cued direct reader stops at the line's end either way.
        iirc: options of IIRC's title step (:class:`IIRCConfig`): ``title_count``, how many titles the
            model is asked for (an integer >= 1); ``max_tokens``, the title call's budget (an integer >= 1);
            ``question_prefix``, put before "The question is" (a string ending in a space or newline).
    """

    k_per_step: PositiveInt = 4
    max_steps: PositiveInt = 8
    paragraph_budget: PositiveInt = 15
    stop_sequence: str = "answer is:"
    reasoning_prompt_template: str | None = None
    qa_prompt_template: str | None = None
    max_paragraph_words: PositiveInt = 600
    generation_max_tokens: PositiveInt = 300
    reader: ReaderChoice = "direct"
    reader_max_tokens: PositiveInt = 200
    reader_context: ReaderContext = "own"
    reader_format: ReaderFormat = field(default="completion", metadata=ADDED_AFTER_FIRST_RUNS)
    question_prefix: str = ""
    reader_question_prefix: str = ""
    near_duplicate_threshold: Annotated[float, Interval(ge=0, le=100)] = 90.0
    exclude_collected: bool = False
    max_demonstrations: PositiveInt | None = field(default=None, metadata=ADDED_AFTER_FIRST_RUNS)
    reader_stop: ReaderStop = field(default="line", metadata=fixed_after_runs("paragraph"))
    iirc: IIRCConfig = field(default_factory=IIRCConfig)

    def __post_init__(self) -> None:
        check_fields(self, "IRCoT option")  # types and ranges, as annotated above
        if not self.stop_sequence.strip():
            raise ConfigError("IRCoT option 'stop_sequence' must not be empty")
        for option in ("question_prefix", "reader_question_prefix"):
            prefix = getattr(self, option)
            if prefix and not prefix[-1].isspace():
                raise ConfigError(f"IRCoT option {option!r} must end with a space or a newline, got {prefix!r}")
        if self.reasoning_prompt_template is not None:
            check_template(self.reasoning_prompt_template, "reasoning_prompt_template", REASONING_VARIABLES)
        if self.qa_prompt_template is not None:
            check_template(self.qa_prompt_template, "qa_prompt_template", QA_VARIABLES)
        if self.reader_format == "chat" and (self.reader_context == "reasoning" or self.qa_prompt_template is not None):
            raise ConfigError("IRCoT option reader_format='chat' reads in its own context, with its own turns: "
                              "it takes neither reader_context='reasoning' nor a 'qa_prompt_template'")
        if self.reader_context == "reasoning" and (self.reader == "none" or self.qa_prompt_template is not None):
            raise ConfigError("IRCoT option reader_context='reasoning' needs a reader ('direct' or 'cot') "
                              "and no 'qa_prompt_template'")
