"""DRAGIN (Su et al., ACL 2024): RIND decides when to retrieve from each generated word's entropy and
the attention the generation pays it; QFS writes the query from the words the triggering ones attend
to; the text continues from before the triggering sentence over the retrieved paragraphs."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

from hopkit.llm.protocol import ATTENTION
from hopkit.methods.dragin.claims import CLAIMS
from hopkit.methods.dragin.method import DRAGIN, PARTS, DRAGINConfig
from hopkit.methods.dragin.prompts import FALLBACK_SET, check_shots, known_sets
from hopkit.methods.dragin.steps import PAYLOADS, DRAGINSummary
from hopkit.methods.registry import MethodEntry, MethodParts

logger = logging.getLogger(__name__)


def build(parts: MethodParts) -> DRAGIN:
    retriever = parts.needed_retriever("DRAGIN")
    options: DRAGINConfig = parts.options
    exemplars = options.exemplars or (parts.dataset if parts.dataset in known_sets() else FALLBACK_SET)
    if options.exemplars is None and parts.dataset is not None and exemplars != parts.dataset:
        logger.warning("dragin: dataset %r has no declared setting; using %s's exemplars (set exemplars to choose: "
                       "%s)", parts.dataset, exemplars, ", ".join(sorted(known_sets())))
    check_shots(exemplars, options.shots)
    return DRAGIN(parts.llm, retriever, replace(options, exemplars=exemplars))


METHOD = MethodEntry(
    name="dragin", title="DRAGIN", options=DRAGINConfig, build=build, retrieves=True, top_k="k",
    template=Path(__file__).with_name("report.html.j2"),
    summary="retrieves when a generated word's entropy times its attention passes θ, with a query "
            "of the words it attends to",
    payloads=PAYLOADS, summary_type=DRAGINSummary, needs=(ATTENTION,), claims=CLAIMS, parts=PARTS)

__all__ = ["METHOD", "DRAGIN", "DRAGINConfig"]
