"""ITER-RETGEN (Shao et al., 2023): T iterations of retrieval with the question and the previous
generation, then a chain of thought over the paragraphs retrieved."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from annotated_types import Ge

from hopkit.methods.demonstrations import DemonstrationSpec, load_demonstrations
from hopkit.methods.iter_retgen.claims import CLAIMS
from hopkit.methods.iter_retgen.method import PARTS, IterRetGen, IterRetGenConfig
from hopkit.methods.iter_retgen.steps import PAYLOADS, IterRetGenSummary
from hopkit.methods.registry import MethodEntry, MethodParts


@dataclass(frozen=True)
class IterRetGenOptions(IterRetGenConfig):
    """ITER-RETGEN's options.

    Attributes:
        iterations: T, the retrieval-generation iterations (the paper's cost setting is 2).
        k: paragraphs retrieved per iteration (the paper's 5).
        max_tokens: generation budget of each iteration's chain of thought.
        demonstrations: the chain-of-thought demonstrations with paragraphs (the IRCoT authors'
            files, see docs/methods/iter-retgen.md); null for a zero-shot chain of thought (the run is
            warned).
        shots: how many of those demonstrations the prompt holds (the paper's 3).
    """

    demonstrations: DemonstrationSpec | None = None
    shots: Annotated[int, Ge(1)] = 3


def build(parts: MethodParts) -> IterRetGen:
    retriever = parts.needed_retriever("ITER-RETGEN")
    options = parts.options
    demonstrations = load_demonstrations(options.demonstrations, "cot", with_context=True)[:options.shots]
    return IterRetGen(parts.llm, retriever, options, demonstrations)


def warnings(options: IterRetGenOptions) -> list[str]:
    if options.demonstrations is None:
        return ["ITER-RETGEN runs zero-shot: the paper prompts with 3 chain-of-thought demonstrations "
                "(set demonstrations: {dataset: hotpotqa})"]
    return []


METHOD = MethodEntry(
    name="iter-retgen", title="ITER-RETGEN", options=IterRetGenOptions, build=build, retrieves=True, top_k="k",
    template=Path(__file__).with_name("report.html.j2"), warnings=warnings,
    summary="T rounds of retrieval with the question and the last generation, each followed by a chain of thought",
    payloads=PAYLOADS, summary_type=IterRetGenSummary, claims=CLAIMS, parts=PARTS)

__all__ = ["METHOD", "IterRetGen", "IterRetGenConfig", "IterRetGenOptions"]
