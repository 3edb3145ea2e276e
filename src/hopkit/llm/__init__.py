"""Language model backends behind one small protocol."""

from hopkit.llm.protocol import LLM, Completion

__all__ = ["LLM", "Completion"]
