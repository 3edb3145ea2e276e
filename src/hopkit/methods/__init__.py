"""The question-answering methods, each a pure per-question algorithm.

A method is built from its components (LLM, retriever, options) and answers one
question at a time with ``generate(query) -> GenerationResult``. It never touches
the store: the runner (``hopkit.pipelines.runner``) hands it questions and keeps the results.
"""

from hopkit.methods.protocol import Method

__all__ = ["Method"]
