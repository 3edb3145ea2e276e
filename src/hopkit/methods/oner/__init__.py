"""OneR (IRCoT paper, Section 4.1): one retrieval with the question, then the reader."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hopkit.methods.demonstrations import DemonstrationSpec, load_demonstrations
from hopkit.methods.nor import with_flan_reader_prefix
from hopkit.methods.oner.method import PARTS, PAYLOADS, OneR, OneRConfig
from hopkit.methods.reader_steps import OneRSummary
from hopkit.methods.registry import MethodEntry, MethodParts


@dataclass(frozen=True)
class OneROptions(OneRConfig):
    """OneR's options.

    Attributes:
        k: paragraphs retrieved with the question (the paper picks K in 5..15 on dev).
        reader: the reader's options ("direct", "cot" or a mapping of :class:`ReaderConfig`'s fields).
        demonstrations: the authors' demonstration set for the reader (their files with
            paragraphs); None for zero-shot prompts. With ``family: flan_t5`` an empty question prefix
            becomes the IRCoT authors' "Answer the following question.\\n"
            (:func:`~hopkit.methods.nor.with_flan_reader_prefix`).
        query, admit_hits, reader_stop: see :class:`OneRConfig`.
    """

    demonstrations: DemonstrationSpec | None = None


def build(parts: MethodParts) -> OneR:
    retriever = parts.needed_retriever("OneR")
    options = parts.options
    demonstrations = load_demonstrations(options.demonstrations, options.reader.mode, with_context=True)
    return OneR(parts.llm, retriever, options, demonstrations)


METHOD = MethodEntry(
    name="oner", title="OneR", options=OneROptions, build=build, retrieves=True, top_k="k",
    prepare=with_flan_reader_prefix,
    template=Path(__file__).parent.parent / "nor" / "report.html.j2",
    summary="one retrieval with the question, then the reader", payloads=PAYLOADS, summary_type=OneRSummary,
    parts=PARTS)

__all__ = ["METHOD", "OneR", "OneRConfig", "OneROptions"]
