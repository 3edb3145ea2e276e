"""NoR (IRCoT paper, Section 4.1): the question alone, answered from the model's own knowledge."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from hopkit.methods.demonstrations import DemonstrationSpec, load_demonstrations
from hopkit.methods.nor.method import PARTS, PAYLOADS, NoR, NoRConfig
from hopkit.methods.reader import FLAN_READER_PREFIX, ReaderConfig
from hopkit.methods.reader_steps import NoRSummary
from hopkit.methods.registry import MethodEntry, MethodParts


@dataclass(frozen=True)
class NoROptions(NoRConfig):
    """NoR's options: the reader's, and the authors' demonstrations for it.

    Attributes:
        reader: the reader's options ("direct", "cot" or a mapping of :class:`ReaderConfig`'s fields).
        demonstrations: the authors' demonstration set for the reader (their question-only
            files); None for zero-shot prompts. With ``family: flan_t5`` an empty question prefix
            becomes the IRCoT authors' "Answer the following question.\\n"
            (:func:`with_flan_reader_prefix`).
        reader_stop: see :class:`NoRConfig`.
    """

    demonstrations: DemonstrationSpec | None = None


def with_flan_reader_prefix(options: Any) -> Any:
    """NoR's or OneR's options as they run: with the Flan-T5 demonstrations, the reader's question prefix
    the IRCoT authors' NoR and OneR configs give (:data:`~hopkit.methods.reader.FLAN_READER_PREFIX`) where
    the options leave it empty."""
    reader: ReaderConfig = options.reader
    if options.demonstrations is None or options.demonstrations.family != "flan_t5" or reader.question_prefix:
        return options
    return replace(options, reader=replace(reader, question_prefix=FLAN_READER_PREFIX))


def build(parts: MethodParts) -> NoR:
    options = parts.options
    demonstrations = load_demonstrations(options.demonstrations, options.reader.mode, with_context=False)
    return NoR(parts.llm, options, demonstrations)


METHOD = MethodEntry(
    name="nor", title="NoR", options=NoROptions, build=build, retrieves=False, prepare=with_flan_reader_prefix,
    no_top_k_reason="NoR retrieves nothing", template=Path(__file__).with_name("report.html.j2"),
    summary="no retrieval: the reader answers the question alone", payloads=PAYLOADS, summary_type=NoRSummary,
    parts=PARTS)

__all__ = ["METHOD", "NoR", "NoRConfig", "NoROptions", "with_flan_reader_prefix"]
