"""Language model backends behind one small protocol, with optional capabilities (early stop, scoring, token
scoring, chat, sampling, attention)."""

from hopkit.llm.protocol import (ATTENTION, EARLY_STOP, LLM, SAMPLING, SCORING, TOKEN_SCORING, AttendedCompletion,
                                 AttendingLLM, Attention, Capability, Completion, SamplingLLM, Scores, ScoringLLM,
                                 StreamingLLM, TokenScores, TokenScoringLLM)
from hopkit.llm.capabilities import capabilities_of, require, supports

__all__ = ["ATTENTION", "AttendedCompletion", "AttendingLLM", "Attention", "EARLY_STOP", "LLM", "SAMPLING", "SCORING", "TOKEN_SCORING", "Capability", "Completion", "SamplingLLM",
           "Scores", "ScoringLLM", "StreamingLLM", "TokenScores", "TokenScoringLLM", "capabilities_of", "require",
           "supports"]
