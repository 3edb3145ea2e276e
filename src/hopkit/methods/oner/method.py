"""OneR: one retrieval with the question, then the reader (IRCoT paper, Section 4.1)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from hopkit.llm.protocol import LLM
from hopkit.methods.context import with_main_passage
from hopkit.methods.reader import Reader, ReaderConfig
from hopkit.options import PositiveInt, check_fields
from hopkit.records import GenerationResult, Query
from hopkit.retrieval.protocol import Retriever
from hopkit.traces import record_step
from hopkit.usage import usage_component


@dataclass(frozen=True)
class OneRConfig:
    """Options of OneR.

    Attributes:
        k: paragraphs retrieved with the question (the paper picks K in 5..15 on dev).
        reader: the reader's options.
    """

    k: PositiveInt = 5
    reader: ReaderConfig = field(default_factory=ReaderConfig)

    def __post_init__(self) -> None:
        check_fields(self, "OneR option")


class OneR:
    """One-step retrieval: (a) retrieve K paragraphs with the question; (b) read them.

    Its trace: a ``retrieve`` step (the question; the ids and scores returned) and a
    ``read`` step (the question; the answer; the paragraphs read; the reader's generation).
    """

    name = "oner"

    def __init__(self, llm: LLM, retriever: Retriever, config: OneRConfig = OneRConfig(),
                 demonstrations: Sequence[str] = ()) -> None:
        self.retriever = retriever
        self.config = config
        self.reader = Reader(llm, config.reader, demonstrations)

    def generate(self, query: Query) -> GenerationResult:
        hits = self.retriever.retrieve(query.text, self.config.k)                       # (a)
        paragraphs = [hit.paragraph for hit in hits]
        retrieved = record_step("retrieve", input=query.text, paragraph_ids=[hit.id for hit in hits],
                                scores=[float(hit.score) for hit in hits], extra={"k": self.config.k})
        shown = with_main_passage(query, paragraphs)
        with usage_component("oner:read"):
            output = self.reader.read(query.text, shown)                                # (b)
        record_step("read", parent=retrieved, input=query.text, output=output.answer,
                    paragraph_ids=[p.id for p in shown], extra={"generation": output.generation})
        return GenerationResult(
            text=output.answer,
            chunk_ids=tuple(p.id for p in paragraphs),
            metadata={"reader_generation": output.generation,
                      "retrieved_titles": [p.title for p in paragraphs]},
        )
