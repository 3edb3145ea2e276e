"""Language model backends behind one small protocol, with optional capabilities (early stop, scoring)."""

from hopkit.llm.protocol import (
    EARLY_STOP,
    LLM,
    SCORING,
    Capability,
    Completion,
    Scores,
    ScoringLLM,
    StreamingLLM,
    capabilities_of,
    require,
    supports,
)

__all__ = ["EARLY_STOP", "LLM", "SCORING", "Capability", "Completion", "Scores", "ScoringLLM", "StreamingLLM",
           "capabilities_of", "require", "supports"]
