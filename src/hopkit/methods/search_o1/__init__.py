"""Search-o1 (Li et al., 2025): the model reasons and searches between its markers, and a
Reason-in-Documents step condenses each search's documents into the information put back into its
reasoning."""

from __future__ import annotations

from pathlib import Path

from hopkit.methods.registry import MethodEntry, MethodParts
from hopkit.methods.search_o1.claims import CLAIMS
from hopkit.methods.search_o1.method import PARTS, SearchO1, SearchO1Config, for_dataset
from hopkit.methods.search_o1.steps import PAYLOADS, SearchO1Summary


def build(parts: MethodParts) -> SearchO1:
    return SearchO1(parts.llm, parts.needed_retriever("Search-o1"), for_dataset(parts.options, parts.dataset))


METHOD = MethodEntry(
    name="search-o1", title="Search-o1", options=SearchO1Config, build=build, retrieves=True, top_k="k",
    template=Path(__file__).with_name("report.html.j2"),
    summary="the model reasons and searches; Reason-in-Documents condenses each search's documents into its reasoning",
    payloads=PAYLOADS, claims=CLAIMS, summary_type=SearchO1Summary, parts=PARTS)

__all__ = ["METHOD", "SearchO1", "SearchO1Config"]
