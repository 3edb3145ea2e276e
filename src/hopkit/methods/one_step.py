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
    """One-step retrieval: (a) retrieve K paragraphs with the question; (b) read them."""

    name = "oner"

    def __init__(self, llm: LLM, retriever: Retriever, config: OneRConfig = OneRConfig(),
                 demonstrations: Sequence[str] = ()) -> None:
        self.retriever = retriever
        self.config = config
        self.reader = Reader(llm, config.reader, demonstrations)

    def generate(self, query: Query) -> GenerationResult:
        hits = self.retriever.retrieve(query.text, self.config.k)                       # (a)
        paragraphs = [hit.paragraph for hit in hits]
        output = self.reader.read(query.text, with_main_passage(query, paragraphs))     # (b)
        return GenerationResult(
            text=output.answer,
            chunk_ids=tuple(p.id for p in paragraphs),
            metadata={"reader_generation": output.generation,
                      "retrieved_titles": [p.title for p in paragraphs]},
        )
