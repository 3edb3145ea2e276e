"""What both ends of a retrieval server share, below the pipelines that use it: the wire format
(:mod:`hopkit.remote_retrieval.wire`) and the client that makes any such server a retriever
(:mod:`hopkit.remote_retrieval.client`). The server itself is :mod:`hopkit.serving` (docs/serving.md)."""
