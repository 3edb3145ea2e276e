"""Search-R1-style search agents (Jin et al., 2025, and the family trained like it: R1-Searcher,
AutoRefine...): the model searches between its family's tags, reads the documents written back into
its turn, and answers between its answer tags; the tags, instruction and layout are the family's
template."""

from __future__ import annotations

from pathlib import Path

from hopkit.methods.registry import MethodEntry, MethodParts
from hopkit.methods.search_agent.claims import CLAIMS
from hopkit.methods.search_agent.method import PARTS, SearchAgent, SearchAgentConfig, with_template_settings
from hopkit.methods.search_agent.steps import PAYLOADS, SearchAgentSummary


def build(parts: MethodParts) -> SearchAgent:
    retriever = parts.needed_retriever("the search agent")
    return SearchAgent(parts.llm, retriever, parts.options)


METHOD = MethodEntry(
    name="search-agent", title="Search agent", options=SearchAgentConfig, build=build, retrieves=True, top_k="k",
    prepare=with_template_settings, template=Path(__file__).with_name("report.html.j2"),
    summary="the model searches between its family's tags and answers between its answer tags (Search-R1 and kin)",
    payloads=PAYLOADS, claims=CLAIMS, summary_type=SearchAgentSummary, parts=PARTS)

__all__ = ["METHOD", "SearchAgent", "SearchAgentConfig"]
