"""Retrieval pipelines: a named retriever over a dataset's pooled corpus in the store."""

from hopkit.pipelines.retrieval.base import RetrievalPipeline

__all__ = ["RetrievalPipeline"]
