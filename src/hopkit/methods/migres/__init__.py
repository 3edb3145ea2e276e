"""MIGRES (Wang et al., 2024): missing-information guided retrieve-extraction-solving.

The loop is :class:`~hopkit.methods.migres.method.MIGRES`; its modules, knowledge filter,
memory, response parsers, trace steps, verbatim prompts and the authors' demonstrations
are beside it.
"""

from __future__ import annotations

from pathlib import Path

from hopkit.errors import ConfigError
from hopkit.methods.migres.method import MIGRES, MIGRESConfig
from hopkit.methods.registry import MethodEntry, MethodParts


def build(parts: MethodParts) -> MIGRES:
    if parts.retriever is None:
        raise ConfigError("MIGRES needs a retrieval pipeline")
    options = parts.options
    demonstrations = None
    if options.few_shot:
        from hopkit.methods.migres.demonstrations import load_migres_demonstrations

        demonstrations = load_migres_demonstrations(options.demonstration_set)
    return MIGRES(parts.llm, parts.retriever, options, demonstrations)


METHOD = MethodEntry(
    name="migres", title="MIGRES", options=MIGRESConfig, build=build, retrieves=True,
    no_top_k_reason="MIGRES retrieves hits_per_query passages for each query it asks (its own option)",
    template=Path(__file__).with_name("report.html.j2"),
    summary="asks for the information still missing, extracts facts from filtered passages, then solves")

__all__ = ["METHOD", "MIGRES", "MIGRESConfig"]
