"""NoR: the question alone, answered by the reader from the model's own knowledge."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from hopkit.llm.protocol import LLM
from hopkit.methods.context import with_main_passage
from hopkit.methods.reader import Reader, ReaderConfig, ReaderStop
from hopkit.options import check_fields, fixed_after_runs
from hopkit.records import GenerationResult, Query
from hopkit.methods.reader_steps import NoRSummary, ReaderRead, record_reading
from hopkit.traces.payload import Payload
from hopkit.usage import ModelCallParts

#: The parts of nor that call the model, each a column of the cost tables (``nor:<part>``).
PARTS = ModelCallParts("nor", ("read",))

#: NoR's payloads, one per kind.
PAYLOADS: tuple[type[Payload], ...] = (ReaderRead,)


@dataclass(frozen=True)
class NoRConfig:
    """Options of NoR: the reader's.

    Attributes:
        reader: the reader's options.
        reader_stop: what ends the reader's generation (:data:`~hopkit.methods.reader.READER_STOPS`):
            ``line`` (at its first line break: the IRCoT authors' GPT3Generator) or ``paragraph`` (at a blank
            line or a next "Q:"; hopkit's before issue 71, the campaign's saved cells', pinned, and left out of
            the run's identity). A zero-shot template or a chat reader stops at a blank line either way.
    """

    reader: ReaderConfig = field(default_factory=ReaderConfig)
    reader_stop: ReaderStop = field(default="line", metadata=fixed_after_runs("paragraph"))

    def __post_init__(self) -> None:
        check_fields(self, "NoR option")


class NoR:
    """No retrieval: (a) read the question (and IIRC's main passage) with the reader.

    Its trace: one ``read`` step (:class:`~hopkit.methods.reader_steps.ReaderRead`: the
    question; the answer; the main passage's id, if any; the reader's generation).
    """

    name = "nor"

    def __init__(self, llm: LLM, config: NoRConfig = NoRConfig(), demonstrations: Sequence[str] = ()) -> None:
        self.config = config
        self.reader = Reader(llm, config.reader, demonstrations, stop=config.reader_stop)

    def generate(self, query: Query) -> GenerationResult:
        shown = with_main_passage(query, [])
        with PARTS.call("read"):
            output = self.reader.read(query.text, shown)                                # (a)
        record_reading(query.text, output.answer, output.generation, shown)
        return GenerationResult(text=output.answer, metadata=NoRSummary(reader_generation=output.generation))
