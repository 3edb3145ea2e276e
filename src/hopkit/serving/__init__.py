"""Retrieval as a service: any hopkit retriever behind HTTP (``hopkit serve-retrieval``), in Search-R1's
``/retrieve`` shape and hopkit's own, and the client that makes any such server a retriever (docs/serving.md)."""
