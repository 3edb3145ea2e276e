"""OneR: one retrieval with the question, then the reader (IRCoT paper, Section 4.1).

As the IRCoT authors' ``oner_qa_*`` configs run it (``RetrieveAndResetParagraphsParticipant`` with
``query_source: original_question``): the question without its wh-words is the query (none left: no
retrieval), and the hits are admitted as IRCoT admits them (:class:`ParagraphCollection`: a hit over
600 words or a near duplicate of a kept one is skipped, at most 15 kept).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Sequence

from hopkit.llm.protocol import LLM
from hopkit.methods.context import with_main_passage
from hopkit.methods.ircot.query import remove_wh_words
from hopkit.methods.paragraph_collection import ParagraphCollection
from hopkit.methods.reader import Reader, ReaderConfig, ReaderStop
from hopkit.options import PositiveInt, check_fields, fixed_after_runs
from hopkit.records import GenerationResult, Query
from hopkit.retrieval.protocol import Retriever
from hopkit.methods.reader_steps import OneRSummary, ReaderRead, record_reading
from hopkit.traces.payload import Payload, at, record
from hopkit.usage import ModelCallParts

#: The parts of oner that call the model, each a column of the cost tables (``oner:<part>``).
PARTS = ModelCallParts("oner", ("read",))


@dataclass(frozen=True)
class OneRConfig:
    """Options of OneR.

    Attributes:
        k: paragraphs retrieved with the question (the paper picks K in 5..15 on dev).
        reader: the reader's options.
        query: ``no_wh_words`` (the IRCoT authors' OneR: the question without
            who/what/when/where/why/which/how/does/is; nothing left, no retrieval) or ``question`` (as asked;
            the campaign's saved cells, pinned).
        admit_hits: ``collection`` (the authors': a hit over 600 words or a near duplicate of a kept one is
            skipped, at most 15 kept, as IRCoT's collection does) or ``all`` (every hit is read; the saved
            cells, pinned).
        reader_stop: what ends the reader's generation (:data:`~hopkit.methods.reader.READER_STOPS`):
            ``line`` (at its first line break: the IRCoT authors' GPT3Generator) or ``paragraph`` (at a blank
            line or a next "Q:"; the saved NoR, OneR and IRCoT cells, pinned). A zero-shot template or a chat
            reader stops at a blank line either way.

    ``question``, ``all`` and ``paragraph`` are hopkit's behaviour before issue 71, with which the
    campaign's saved cells ran; at those values the options are left out of the run's identity.
    """

    k: PositiveInt = 5
    reader: ReaderConfig = field(default_factory=ReaderConfig)
    query: Literal["no_wh_words", "question"] = field(default="no_wh_words", metadata=fixed_after_runs("question"))
    admit_hits: Literal["collection", "all"] = field(default="collection", metadata=fixed_after_runs("all"))
    reader_stop: ReaderStop = field(default="line", metadata=fixed_after_runs("paragraph"))

    def __post_init__(self) -> None:
        check_fields(self, "OneR option")


@dataclass(frozen=True, kw_only=True)
class OneRRetrieve(Payload):
    """OneR's retrieval (a): the query (the question, without its wh-words by default), ``k`` the hits
    asked for (the step's ``paragraph_ids`` and ``scores`` are the hits; the read step's, those admitted)."""

    kind = "retrieve"
    query: str = at("input")
    k: int


#: OneR's payloads, one per kind.
PAYLOADS: tuple[type[Payload], ...] = (OneRRetrieve, ReaderRead)


class OneR:
    """One-step retrieval: (a) retrieve K paragraphs with the question (without its wh-words) and admit
    them to a collection; (b) read those admitted.

    Its trace: a ``retrieve`` step (:class:`OneRRetrieve`: the query; the ids and scores
    returned) and a ``read`` step (:class:`~hopkit.methods.reader_steps.ReaderRead`: the
    question; the answer; the paragraphs read; the reader's generation).
    """

    name = "oner"

    def __init__(self, llm: LLM, retriever: Retriever, config: OneRConfig = OneRConfig(),
                 demonstrations: Sequence[str] = ()) -> None:
        self.retriever = retriever
        self.config = config
        self.reader = Reader(llm, config.reader, demonstrations, stop=config.reader_stop)

    def generate(self, query: Query) -> GenerationResult:
        text = remove_wh_words(query.text) if self.config.query == "no_wh_words" else query.text
        hits = self.retriever.retrieve(text, self.config.k) if text.strip() else []     # (a)
        paragraphs = [hit.paragraph for hit in hits]
        if self.config.admit_hits == "collection":
            paragraphs = ParagraphCollection().extend(paragraphs)
        retrieved = record(OneRRetrieve(query=text, k=self.config.k), hits=hits)
        shown = with_main_passage(query, paragraphs)
        with PARTS.call("read"):
            output = self.reader.read(query.text, shown)                                # (b)
        record_reading(query.text, output.answer, output.generation, shown, parent=retrieved)
        return GenerationResult(
            text=output.answer,
            chunk_ids=tuple(p.id for p in paragraphs),
            metadata=OneRSummary(reader_generation=output.generation,
                                 retrieved_titles=tuple(p.title for p in paragraphs)),
        )
