"""FLARE-direct (Jiang et al., 2023): one look-ahead sentence at a time; a sentence with an uncertain
token is retrieved for (uncertain tokens masked) and written again."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Literal

from annotated_types import Ge

from hopkit.llm.protocol import TOKEN_SCORING
from hopkit.methods.demonstrations import DemonstrationSpec
from hopkit.methods.flare.claims import CLAIMS
from hopkit.methods.flare.exemplars import load_flare_exemplars, retrieves_for_exemplars
from hopkit.methods.flare.method import FLARE, PARTS, FLAREConfig
from hopkit.methods.flare.steps import PAYLOADS, FLARESummary
from hopkit.methods.registry import MethodEntry, MethodParts
from hopkit.options import fixed_after_runs


@dataclass(frozen=True)
class FLAREOptions(FLAREConfig):
    """FLARE's options (defaults: the authors' 2WikiMultihopQA configuration).

    Attributes:
        k: paragraphs per retrieval (2 on 2WikiMultihopQA, 3 on StrategyQA).
        theta: θ, a look-ahead sentence with a token below this probability triggers a retrieval and is
            written again (0.8 on 2WikiMultihopQA, 0.4 on StrategyQA).
        beta: β, tokens below this probability are masked out of the retrieval query (0.4).
        look_ahead_tokens: the look-ahead's budget; its first sentence is kept (64).
        max_sentences: sentences generated at most before the answer.
        demonstrations: the chain-of-thought demonstrations (the IRCoT authors' files, as FLARE's
            2WikiMultihopQA configuration uses; ``{dataset: flare-strategyqa, distractors: 0}``
            for the authors' six StrategyQA exemplars); None for a zero-shot chain of thought (the run is
            warned).
        shots: how many of them the prompt holds (the authors' 8; 6 on StrategyQA).
        exemplars: "flare": on 2WikiMultihopQA the authors' eight exemplars in their order (all eight
            are IRCoT demonstrations, chains and answers the same); "ircot": the IRCoT authors'
            selection (as the campaign's saved runs did). Other datasets have the IRCoT authors' set.
        exemplar_paragraphs: "retrieved": each exemplar is shown with the retriever's top-k for its
            own question, retrieved once before the first question (the authors'
            ``use_ctx_for_examplars: ret``); "gold": the IRCoT files' gold paragraphs with their
            ``distractors`` (as the saved runs did). The StrategyQA sets keep their statements.
    """

    demonstrations: DemonstrationSpec | None = None
    shots: Annotated[int, Ge(1)] = 8
    exemplars: Literal["flare", "ircot"] = field(default="flare", metadata=fixed_after_runs("ircot"))
    exemplar_paragraphs: Literal["retrieved", "gold"] = field(default="retrieved", metadata=fixed_after_runs("gold"))


def build(parts: MethodParts) -> FLARE:
    retriever = parts.needed_retriever("FLARE")
    options = parts.options
    spec = options.demonstrations
    demonstrations = load_flare_exemplars(spec, options.exemplars, options.exemplar_paragraphs, options.shots)
    return FLARE(parts.llm, retriever, options, demonstrations,
                 retrieve_for_demonstrations=retrieves_for_exemplars(spec, options.exemplar_paragraphs))


def warnings(options: FLAREOptions) -> list[str]:
    if options.demonstrations is None:
        return ["FLARE runs zero-shot: the authors prompt with 8 chain-of-thought exemplars "
                "(set demonstrations: {dataset: 2wikimultihopqa})"]
    return []


METHOD = MethodEntry(
    name="flare", title="FLARE", options=FLAREOptions, build=build, retrieves=True, top_k="k",
    template=Path(__file__).with_name("report.html.j2"), warnings=warnings,
    summary="one look-ahead sentence at a time; an uncertain one is retrieved for and written again",
    payloads=PAYLOADS, summary_type=FLARESummary, claims=CLAIMS, needs=(TOKEN_SCORING,), parts=PARTS)

__all__ = ["METHOD", "FLARE", "FLAREConfig", "FLAREOptions"]
