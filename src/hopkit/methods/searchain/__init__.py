"""SearChain (Xu et al., WWW 2024): Search-in-the-Chain.

The loop is :class:`~hopkit.methods.searchain.method.SearChain`; its feedback rules,
Tree-of-Reasoning, tracing marks, growing conversation, trace steps and verbatim prompts
are beside it.
"""

from __future__ import annotations

from pathlib import Path

from hopkit.errors import ConfigError
from hopkit.methods.registry import MethodEntry, MethodParts
from hopkit.methods.searchain.method import SearChain, SearChainConfig
from hopkit.methods.searchain.steps import PAYLOADS


def build(parts: MethodParts) -> SearChain:
    if parts.retriever is None:
        raise ConfigError("SearChain needs a retrieval pipeline")
    return SearChain(parts.llm, parts.retriever, parts.options)


METHOD = MethodEntry(
    name="searchain", title="SearChain", options=SearChainConfig, build=build, retrieves=True, top_k="top_k",
    template=Path(__file__).with_name("report.html.j2"),
    summary="the model writes a chain of queries; retrieval verifies and completes it node by node",
    payloads=PAYLOADS)

__all__ = ["METHOD", "SearChain", "SearChainConfig"]
