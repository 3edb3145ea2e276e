"""Language model backends behind one small protocol, with optional capabilities (early stop, scoring, token
scoring, chat, sampling)."""

from hopkit.llm.protocol import (
    EARLY_STOP,
    LLM,
    SAMPLING,
    SCORING,
    TOKEN_SCORING,
    Capability,
    Completion,
    SamplingLLM,
    Scores,
    ScoringLLM,
    StreamingLLM,
    TokenScores,
    TokenScoringLLM,
    capabilities_of,
    require,
    supports,
)

__all__ = ["EARLY_STOP", "LLM", "SAMPLING", "SCORING", "TOKEN_SCORING", "Capability", "Completion", "SamplingLLM",
           "Scores", "ScoringLLM", "StreamingLLM", "TokenScores", "TokenScoringLLM", "capabilities_of", "require",
           "supports"]
