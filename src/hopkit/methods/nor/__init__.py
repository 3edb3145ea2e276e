"""NoR (IRCoT paper, Section 4.1): the question alone, answered from the model's own knowledge."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hopkit.methods.demonstrations import DemonstrationSpec, load_demonstrations
from hopkit.methods.nor.method import PAYLOADS, NoR, NoRConfig
from hopkit.methods.reader_steps import NoRSummary
from hopkit.methods.registry import MethodEntry, MethodParts


@dataclass(frozen=True)
class NoROptions(NoRConfig):
    """NoR's options: the reader's, and the authors' demonstrations for it.

    Attributes:
        reader: the reader's options ("direct", "cot" or a mapping of :class:`ReaderConfig`'s fields).
        demonstrations: the authors' demonstration set for the reader (their question-only
            files); None for zero-shot prompts.
    """

    demonstrations: DemonstrationSpec | None = None


def build(parts: MethodParts) -> NoR:
    options = parts.options
    demonstrations = load_demonstrations(options.demonstrations, options.reader.mode, with_context=False)
    return NoR(parts.llm, options, demonstrations)


METHOD = MethodEntry(
    name="nor", title="NoR", options=NoROptions, build=build, retrieves=False,
    no_top_k_reason="NoR retrieves nothing", template=Path(__file__).with_name("report.html.j2"),
    summary="no retrieval: the reader answers the question alone", payloads=PAYLOADS, summary_type=NoRSummary)

__all__ = ["METHOD", "NoR", "NoRConfig", "NoROptions"]
