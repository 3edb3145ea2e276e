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
from hopkit.methods.reader_steps import OneRSummary, ReaderRead, record_reading
from hopkit.traces.payload import Payload, at, record
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


@dataclass(frozen=True, kw_only=True)
class OneRRetrieve(Payload):
    """OneR's retrieval (a): the question as the query, ``k`` the hits asked for (the step's
    ``paragraph_ids`` and ``scores`` are the hits)."""

    kind = "retrieve"
    query: str = at("input")
    k: int


#: OneR's payloads, one per kind.
PAYLOADS: tuple[type[Payload], ...] = (OneRRetrieve, ReaderRead)


class OneR:
    """One-step retrieval: (a) retrieve K paragraphs with the question; (b) read them.

    Its trace: a ``retrieve`` step (:class:`OneRRetrieve`: the question; the ids and scores
    returned) and a ``read`` step (:class:`~hopkit.methods.reader_steps.ReaderRead`: the
    question; the answer; the paragraphs read; the reader's generation).
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
        retrieved = record(OneRRetrieve(query=query.text, k=self.config.k), paragraph_ids=[hit.id for hit in hits],
                           scores=[float(hit.score) for hit in hits])
        shown = with_main_passage(query, paragraphs)
        with usage_component("oner:read"):
            output = self.reader.read(query.text, shown)                                # (b)
        record_reading(query.text, output.answer, output.generation, shown, parent=retrieved)
        return GenerationResult(
            text=output.answer,
            chunk_ids=tuple(p.id for p in paragraphs),
            metadata=OneRSummary(reader_generation=output.generation,
                                 retrieved_titles=tuple(p.title for p in paragraphs)),
        )
