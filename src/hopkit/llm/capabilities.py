"""Which optional capabilities a model declares, and the methods each one adds, listed once.

:func:`supports` asks (never look for the method: wrappers such as ``CachedLLM`` and ``MeteredLLM`` always
have the methods but declare exactly the capabilities of the model they wrap), :func:`require` raises up front
when a model lacks one, and :data:`CAPABILITY_METHOD_TABLE` lists every capability's methods once, from which
the wrappers forward and meter them. The capabilities themselves and their protocol classes are in
:mod:`hopkit.llm.protocol`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from hopkit.errors import LLMError
from hopkit.llm.protocol import (ATTENTION, CHAT, EARLY_STOP, SAMPLING, SCORING, TOKEN_SCORING, AttendingLLM,
                                 Capability, ChatLLM, DeclaresCapabilities, SamplingLLM, ScoringLLM, StreamingLLM,
                                 TokenScoringLLM)

# How the usage meter (hopkit.llm.meter) counts a call of a capability's method: "completion", a generation
# (its prompt noted for the question's trace; its prompt and generated tokens counted, those of an
# AttendedCompletion's completion); "scoring", the prompt tokens of a scoring (the prompt not noted);
# "reading", the tokens of the text an Attention read (the text not noted); "free", no model call (the
# tokenizer alone), not counted.
Metering = Literal["completion", "scoring", "reading", "free"]


@dataclass(frozen=True)
class CapabilityMethod:
    """One method of an optional capability, as the wrappers (:mod:`hopkit.llm.wrapper`) forward it.

    ``protocol`` is the protocol class that declares ``name`` (its signature and docstring are the
    wrappers'); ``metering`` is how :class:`~hopkit.llm.meter.MeteredLLM` counts a call (:data:`Metering`).
    The response cache passes every such call through unless it has its own method for it.
    """

    name: str
    capability: Capability
    protocol: type
    metering: Metering = "completion"


# Every capability's methods, once: a new capability is its protocol class in :mod:`hopkit.llm.protocol` and its rows here (and
# the backends that have it); the wrappers forward and meter it from this table.
CAPABILITY_METHOD_TABLE: Final[tuple[CapabilityMethod, ...]] = (
    CapabilityMethod("complete_until", EARLY_STOP, StreamingLLM),
    CapabilityMethod("score_continuations", SCORING, ScoringLLM, metering="scoring"),
    CapabilityMethod("score_tokens", TOKEN_SCORING, TokenScoringLLM, metering="scoring"),
    CapabilityMethod("complete_chat", CHAT, ChatLLM),
    CapabilityMethod("complete_sample", SAMPLING, SamplingLLM),
    CapabilityMethod("complete_attended", ATTENTION, AttendingLLM),
    CapabilityMethod("attend", ATTENTION, AttendingLLM, metering="reading"),
    CapabilityMethod("token_texts", ATTENTION, AttendingLLM, metering="free"),
)
# The names of each capability's methods (from the table).
CAPABILITY_METHODS: Final[dict[str, tuple[str, ...]]] = {
    capability: tuple(method.name for method in CAPABILITY_METHOD_TABLE if method.capability == capability)
    for capability in dict.fromkeys(method.capability for method in CAPABILITY_METHOD_TABLE)}


def capabilities_of(llm: object) -> frozenset[str]:
    """The optional capabilities ``llm`` declares (none if it declares nothing).

    Raises:
        LLMError: it declares a capability without having its method.
    """
    if not isinstance(llm, DeclaresCapabilities):
        return frozenset()
    declared = frozenset(llm.capabilities)
    for capability in declared:
        for method in CAPABILITY_METHODS.get(capability, ()):
            if not callable(getattr(llm, method, None)):
                raise LLMError(f"{_name_of(llm)} declares the capability {capability!r} but has no {method}() method")
    return declared


def supports(llm: object, capability: Capability) -> bool:
    """Whether ``llm`` declares ``capability`` (one of :data:`Capability`)."""
    return capability in capabilities_of(llm)


def require(llm: object, capability: Capability, *, purpose: str = "") -> None:
    """Check up front (at construction, not halfway through a run) that ``llm`` has ``capability``.

    Args:
        llm: the model.
        capability: one of :data:`Capability`.
        purpose: who needs it, for the message (e.g. ``"the yes/no reader"``).

    Raises:
        LLMError: ``llm`` lacks it (the message names the model and what is missing).
    """
    if not supports(llm, capability):
        raise missing_capability(llm, capability, purpose=purpose)


def missing_capability(llm: object, capability: str, *, purpose: str = "") -> LLMError:
    """The error for calling ``capability`` on a model that lacks it."""
    method = " and ".join(CAPABILITY_METHODS.get(capability, (capability,)))
    has = sorted(capabilities_of(llm))
    needed = f" (needed by {purpose})" if purpose else ""
    return LLMError(f"{_name_of(llm)} does not support {capability!r} ({method}){needed}; its capabilities: "
                    f"{', '.join(has) or 'none'}. Use a backend that has it (llama.cpp has early_stop, "
                    "scoring, token_scoring and sampling, and chat when the GGUF has a chat template; "
                    "OpenAI-compatible servers "
                    "and LangChain chat models that return logprobs have scoring; servers on their chat endpoint and "
                    "LangChain chat models have chat; servers have sampling; the transformers backend "
                    "has attention and token_scoring)")


def _name_of(llm: object) -> str:
    model_id = getattr(llm, "model_id", None)  # for messages only
    return f"{type(llm).__name__}({model_id!r})" if isinstance(model_id, str) else type(llm).__name__
