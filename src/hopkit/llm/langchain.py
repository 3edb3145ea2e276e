"""LangChain chat models (and plain LangChain LLMs) behind hopkit's LLM protocol.

langchain-core is imported only when a LangChain model is actually wrapped, so
``as_llm`` stays cheap for objects that already are hopkit LLMs.
"""

from __future__ import annotations

import time
from typing import Any, Sequence

from hopkit.errors import ConfigError, HopkitError, LLMError, LLMServerError
from hopkit.llm.logprobs import check_candidates, check_single_position, first_token_scores, top_of_first_position
from hopkit.llm.protocol import CHAT, CONCURRENT_CALLS, LLM, SCORING, ChatMessage, Completion, Scores
from hopkit.llm.capabilities import missing_capability
from hopkit.llm.text import cut_at_stop, estimate_tokens


def _name_of(model: Any) -> str:
    """The model name a LangChain model carries (``model_name``, ``model`` or ``model_id``)."""
    for attribute in ("model_name", "model", "model_id"):
        value = getattr(model, attribute, None)
        if isinstance(value, str) and value:
            return value
    return "default"


def _text_of(output: Any) -> str:
    """The text of what ``invoke`` returned: a string, or a message whose content is text or parts."""
    if isinstance(output, str):
        return output
    content = getattr(output, "content", "")
    if isinstance(content, str):
        return content
    parts = []
    for part in content:
        if isinstance(part, str):
            parts.append(part)
        elif isinstance(part, dict) and part.get("type") == "text":
            parts.append(str(part.get("text", "")))
    return "".join(parts)


class LangChainLLM:
    """A LangChain ``BaseChatModel`` (or ``BaseLLM``) used as a hopkit LLM.

    A chat model gets the prompt as one ``HumanMessage``; a plain LLM gets the string.
    ``stop`` goes to ``invoke(stop=...)`` and is also applied to the returned text
    (some providers ignore it). Token counts come from the message's
    ``usage_metadata`` when the provider fills it, else from an estimate.

    Scoring (:meth:`score_continuations`) binds ``logprobs=True, top_logprobs=k`` to a chat
    model and reads the first position's top-k from ``response_metadata["logprobs"]``
    (single-token candidates; see :mod:`hopkit.llm.logprobs`). It is offered by chat models
    whose class has a ``logprobs`` option (``ChatOpenAI`` and the OpenAI-compatible
    providers), unless ``scoring`` says otherwise.

    Args:
        model: the LangChain model, e.g. ``ChatOpenAI(model="gpt-4o-mini")``.
        context_length: its context window in tokens (LangChain does not say).
        model_id: name for cache keys and run hashes; default ``langchain:<Class>:<model name>``.
        pass_options: send ``max_tokens`` and ``temperature`` as ``invoke`` keyword arguments
            (turn off for a model that rejects them; its own settings then apply).
        scoring: whether to offer scoring; ``None``: if the model is a chat model with a
            ``logprobs`` option. A provider that then returns no log-probabilities fails the
            call with an LLMError.
        top_logprobs: how many alternatives a scoring request asks for.

    Raises:
        ConfigError: ``context_length`` or ``top_logprobs`` below 1, or ``scoring=True`` for a
            model that is not a chat model.
    """

    def __init__(self, model: Any, *, context_length: int = 8192, model_id: str | None = None,
                 pass_options: bool = True, scoring: bool | None = None, top_logprobs: int = 20) -> None:
        from langchain_core.language_models import BaseChatModel

        if context_length < 1 or top_logprobs < 1:
            raise ConfigError(f"LangChainLLM needs context_length >= 1 and top_logprobs >= 1, got "
                              f"{context_length} and {top_logprobs}")
        chat = isinstance(model, BaseChatModel)
        if scoring and not chat:
            raise ConfigError(f"LangChainLLM cannot score with a {type(model).__name__}: scoring needs a chat "
                              "model whose provider returns logprobs (such as ChatOpenAI)")
        self.model = model
        self.context_length = context_length
        self.model_id = model_id or f"langchain:{type(model).__name__}:{_name_of(model)}"
        self.pass_options = pass_options
        self.top_logprobs = top_logprobs
        if scoring is None:
            scoring = chat and "logprobs" in (getattr(type(model), "model_fields", None) or {})
        self.capabilities: frozenset[str] = frozenset(
            {CONCURRENT_CALLS} | ({SCORING} if scoring else set()) | ({CHAT} if chat else set()))

    def complete(self, prompt: str, *, stop: Sequence[str] = (), max_tokens: int = 256,
                 temperature: float = 0.0) -> Completion:
        """Invoke the LangChain model once.

        Args:
            prompt: the text (chat models: the user message).
            stop: generation stops before the first of these; they are not in the text.
            max_tokens: at most this many new tokens (if ``pass_options``).
            temperature: sampling temperature (if ``pass_options``).

        Returns:
            The completion.

        Raises:
            LLMServerError: the provider answered 429 or 5xx (after the client's own retries).
            LLMError: the model (or its provider client) raised anything else; the original error is chained.
        """
        from langchain_core.language_models import BaseChatModel

        if isinstance(self.model, BaseChatModel):
            return self.complete_chat([ChatMessage("user", prompt)], stop=stop, max_tokens=max_tokens,
                                      temperature=temperature)
        return self._complete(prompt, prompt, stop, max_tokens, temperature)

    def complete_chat(self, messages: Sequence[ChatMessage], *, stop: Sequence[str] = (), max_tokens: int = 256,
                      temperature: float = 0.0) -> Completion:
        """Invoke a chat model with the turns as LangChain messages (the ``"chat"`` capability).

        Raises:
            LLMError: the model is not a chat model, no messages, or :meth:`complete`'s errors.
        """
        from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

        if CHAT not in self.capabilities:
            raise missing_capability(self, CHAT, purpose="a chat prompt (a LangChain chat model)")
        if not messages:
            raise LLMError("a chat needs at least one message")
        kinds = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
        payload = [kinds[m.role](content=m.content) for m in messages]
        return self._complete(payload, " ".join(m.content for m in messages), stop, max_tokens, temperature)

    def _complete(self, payload: Any, prompt_text: str, stop: Sequence[str], max_tokens: int,
                  temperature: float) -> Completion:
        stops = [s for s in stop if s]
        options: dict[str, Any] = {"max_tokens": max_tokens, "temperature": temperature} if self.pass_options else {}
        started = time.perf_counter()
        output = self._invoke(self.model, payload, stop=stops or None, **options)
        seconds = time.perf_counter() - started
        text = cut_at_stop(_text_of(output), stops)
        usage = getattr(output, "usage_metadata", None) or {}
        details = usage.get("input_token_details") or {}
        return Completion(
            text=text,
            prompt_tokens=int(usage.get("input_tokens") or estimate_tokens(prompt_text)),
            completion_tokens=int(usage.get("output_tokens") or estimate_tokens(text)),
            seconds=seconds,
            cached_prompt_tokens=int(details.get("cache_read") or 0),
        )

    def score_continuations(self, prompt: str, candidates: Sequence[str]) -> Scores:
        """The log-probability of each candidate as the first token of the chat model's reply to ``prompt``.

        Args:
            prompt: the user message.
            candidates: single tokens of the provider's model, e.g. ``"yes"`` and ``"no"``.

        Returns:
            The scores; a candidate outside the returned top-k has a floor value and its
            ``floored`` flag set (see :mod:`hopkit.llm.logprobs`).

        Raises:
            LLMServerError: the provider answered 429 or 5xx.
            LLMError: this model does not offer scoring, its provider returned no log-probabilities,
                no candidates or a candidate of several words.
        """
        from langchain_core.messages import HumanMessage

        if SCORING not in self.capabilities:
            raise missing_capability(self, SCORING)
        chosen = check_candidates(candidates, backend=self.model_id)
        check_single_position(chosen, backend=self.model_id)
        options: dict[str, Any] = {"max_tokens": 1, "temperature": 0.0} if self.pass_options else {}
        scoring = self.model.bind(logprobs=True, top_logprobs=self.top_logprobs)
        started = time.perf_counter()
        output = self._invoke(scoring, [HumanMessage(content=prompt)], **options)
        seconds = time.perf_counter() - started
        logprobs = (getattr(output, "response_metadata", None) or {}).get("logprobs")
        if not logprobs:
            raise LLMError(f"{self.model_id} returned no logprobs in its response_metadata: its provider does not "
                           "return log-probabilities for this model (or ignored logprobs=True); use a provider "
                           "that does (ChatOpenAI, an OpenAI-compatible server) or the llama.cpp backend")
        values, floored = first_token_scores(top_of_first_position(logprobs, where=self.model_id), chosen)
        usage = getattr(output, "usage_metadata", None) or {}
        details = usage.get("input_token_details") or {}
        return Scores(candidates=chosen, logprobs=values, seconds=seconds, floored=floored,
                      prompt_tokens=int(usage.get("input_tokens") or estimate_tokens(prompt)),
                      cached_prompt_tokens=int(details.get("cache_read") or 0))

    def _invoke(self, runnable: Any, payload: Any, **options: Any) -> Any:
        """``runnable.invoke(payload, **options)``, with provider errors turned into LLM errors."""
        try:
            return runnable.invoke(payload, **options)
        except HopkitError:
            raise
        except Exception as exc:  # provider clients raise their own types; chain them, do not hide them
            status = getattr(exc, "status_code", None)
            server_side = status == 429 or (isinstance(status, int) and status >= 500)
            error = LLMServerError if server_side else LLMError
            raise error(f"{self.model_id} failed: {type(exc).__name__}: {exc}") from exc

    def count_tokens(self, text: str) -> int:
        """An estimate (LangChain's own counters may need to download a tokenizer)."""
        return estimate_tokens(text)

    def __repr__(self) -> str:
        return f"LangChainLLM(model_id={self.model_id!r})"


def as_llm(obj: Any) -> LLM:
    """Use ``obj`` as a hopkit LLM: as is if it already is one, wrapped if it is a LangChain model.

    Args:
        obj: a hopkit LLM, a LangChain ``BaseChatModel`` or a LangChain ``BaseLLM``.

    Returns:
        An object satisfying :class:`hopkit.llm.protocol.LLM`.

    Raises:
        ConfigError: ``obj`` is neither (the message names its type).
    """
    if isinstance(obj, LLM):
        return obj
    from langchain_core.language_models import BaseLanguageModel

    if isinstance(obj, BaseLanguageModel):
        return LangChainLLM(obj)
    kind = f"{type(obj).__module__}.{type(obj).__qualname__}"
    raise ConfigError(f"cannot use an object of type {kind} as an LLM: pass a hopkit LLM (model_id, "
                      f"context_length, complete(), count_tokens()), a LangChain chat model such as "
                      f"langchain_openai.ChatOpenAI, or a LangChain LLM")
