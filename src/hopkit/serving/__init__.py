"""Retrieval as a service: any hopkit retriever behind HTTP (``hopkit serve-retrieval``), in Search-R1's
``/retrieve`` shape and hopkit's own (docs/serving.md). The wire format and the client that makes any such
server a retriever lie below the pipelines, in :mod:`hopkit.remote_retrieval`."""
