"""ITER-RETGEN (Shao et al., 2023, "Enhancing Retrieval-Augmented Large Language Models with
Iterative Retrieval-Generation Synergy"), its Section 2 as an algorithm box::

    y_0 <- ""
    for t = 1 .. T:
        (a) D_t <- top-k paragraphs for the query  q          (t = 1)
                                                    q ‖ y_{t-1} (t > 1)
        (b) y_t <- LLM(D_t, q), a chain of thought ending "So the answer is ..."
    return the answer of y_T

Each generation sees only its own iteration's paragraphs, all of them at once (no
interleaving), so the paragraphs the answer read are D_T, the result's ``chunk_ids``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from hopkit.llm.protocol import LLM
from hopkit.methods.iter_retgen.steps import IterRetGenRead, IterRetGenRetrieve, IterRetGenSummary
from hopkit.methods.reader import Reader, ReaderConfig
from hopkit.options import PositiveInt, check_fields
from hopkit.records import GenerationResult, Paragraph, Query
from hopkit.retrieval.protocol import Retriever
from hopkit.traces import PREVIOUS
from hopkit.traces.payload import record
from hopkit.usage import ModelCallParts

#: The parts of iter-retgen that call the model, each a column of the cost tables (``iter-retgen:<part>``).
PARTS = ModelCallParts("iter-retgen", ("generate",))


@dataclass(frozen=True)
class IterRetGenConfig:
    """Options of ITER-RETGEN's loop.

    Attributes:
        iterations: T, the retrieval-generation iterations (the paper's cost setting is 2).
        k: paragraphs retrieved per iteration (the paper's 5).
        max_tokens: generation budget of each iteration's chain of thought.
    """

    iterations: PositiveInt = 2
    k: PositiveInt = 5
    max_tokens: PositiveInt = 256

    def __post_init__(self) -> None:
        check_fields(self, "ITER-RETGEN option")


def next_query(question: str, generation: str) -> str:
    """The query of the next iteration: the question, then the previous generation (q ‖ y_{t-1})."""
    return " ".join(f"{question} {generation}".split())


class IterRetGen:
    """ITER-RETGEN: (a) retrieve with the question and the previous generation; (b) generate a
    chain of thought over the paragraphs retrieved; T times.

    Its trace: per iteration a ``retrieve`` step (:class:`IterRetGenRetrieve`) and a ``read``
    step (:class:`IterRetGenRead`).
    """

    name = "iter-retgen"

    def __init__(self, llm: LLM, retriever: Retriever, config: IterRetGenConfig = IterRetGenConfig(),
                 demonstrations: Sequence[str] = ()) -> None:
        self.retriever = retriever
        self.config = config
        # its chain of thought runs to a blank line, as its fidelity table says (not the IRCoT reader's line stop)
        self.reader = Reader(llm, ReaderConfig(mode="cot", max_tokens=config.max_tokens), demonstrations,
                             stop="paragraph")

    def generate(self, query: Query) -> GenerationResult:
        queries: list[str] = []
        generations: list[str] = []
        answers: list[str] = []
        paragraphs: list[Paragraph] = []
        for iteration in range(1, self.config.iterations + 1):
            search = query.text if iteration == 1 else next_query(query.text, generations[-1])
            hits = self.retriever.retrieve(search, self.config.k)                              # (a)
            paragraphs = [hit.paragraph for hit in hits]
            record(IterRetGenRetrieve(query=search, iteration=iteration, k=self.config.k), parent=PREVIOUS, hits=hits)
            with PARTS.call("generate"):
                output = self.reader.read(query.text, paragraphs)                              # (b)
            record(IterRetGenRead(question=query.text, answer=output.answer, generation=output.generation,
                                  iteration=iteration), parent=PREVIOUS, paragraph_ids=output.paragraph_ids)
            queries.append(search)
            generations.append(output.generation)
            answers.append(output.answer)
        return GenerationResult(
            text=answers[-1],
            chunk_ids=tuple(p.id for p in paragraphs),
            metadata=IterRetGenSummary(iterations=self.config.iterations, queries=tuple(queries),
                                       generations=tuple(generations), answers=tuple(answers),
                                       retrieved_titles=tuple(p.title for p in paragraphs)),
        )
