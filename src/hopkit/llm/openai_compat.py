"""Any OpenAI-compatible HTTP server (OpenAI, vLLM, Ollama, llama.cpp server) as an LLM."""

from __future__ import annotations

import json
import logging
import time
from typing import Any, Literal, Sequence

import httpx

from hopkit import environment
from hopkit.env_values import secret_token
from hopkit.errors import LLMError, LLMServerError, RequestRefusedError
from hopkit.llm.endpoint_pool import EndpointPool, split_base_urls
from hopkit.llm.http_clients import ClientPool
from hopkit.llm.logprobs import check_candidates, check_single_position, first_token_scores, top_of_first_position
from hopkit.llm.protocol import CHAT, CONCURRENT_CALLS, SAMPLING, SCORING, ChatMessage, Completion, Scores
from hopkit.llm.capabilities import missing_capability
from hopkit.llm.retry import TransientError, parse_retry_after, retry_call
from hopkit.llm.text import cut_at_stop, estimate_tokens
from hopkit.options import NonNegativeFloat, NonNegativeInt, PositiveFloat, PositiveInt

logger = logging.getLogger(__name__)

Endpoint = Literal["completions", "chat"]
_PATHS: dict[str, str] = {"completions": "/completions", "chat": "/chat/completions"}
_HINTS: dict[int, str] = {
    400: " (is the prompt longer than the model's context, or an option unsupported?)",
    401: " (set api_key= or the environment variable OPENAI_API_KEY)",
    403: " (the API key may lack access to this model)",
    404: " (check base_url, the model name and whether the server offers this endpoint)",
}
# The refusals a rerun repeats: the same request is refused again (a prompt longer than the context, a bad option).
REFUSED_AS_SENT = frozenset({400, 413, 422})
# A whole request may take this many read timeouts when no deadline is given.
DEADLINE_READ_TIMEOUTS = 3
# The largest reply read by default: a completion with 20 log-probabilities per token for 8,192
# tokens is about 10 MB of JSON.
MAX_REPLY_BYTES = 64 * 1024 * 1024


def endpoint_url(base_url: str, endpoint: str) -> str:
    """The full URL of ``endpoint`` under ``base_url``, which may or may not end with ``/v1``.

    Args:
        base_url: e.g. ``http://localhost:8000`` or ``https://api.openai.com/v1/``.
        endpoint: ``"completions"`` or ``"chat"``.

    Returns:
        e.g. ``http://localhost:8000/v1/completions``.
    """
    base = base_url.rstrip("/")
    if not base.endswith("/v1"):
        base += "/v1"
    return base + _PATHS[endpoint]


def _server_message(body: bytes, reason_phrase: str) -> str:
    """The error message a server put in its response body, shortened."""
    try:
        data = json.loads(body)
    except ValueError:
        return body[:500].decode("utf-8", "replace") or reason_phrase
    if isinstance(data, dict):
        error = data.get("error", data.get("detail", data.get("message")))
        if isinstance(error, dict):
            error = error.get("message", error)
        if error is not None:
            return str(error)[:500]
    return str(data)[:500]


class OpenAICompatibleLLM:
    """A model behind an OpenAI-compatible ``/v1/completions`` or ``/v1/chat/completions`` API.

    Rate limits (429), server errors (5xx), time-outs and connection failures are
    retried ``max_retries`` times with exponential backoff (honouring
    ``Retry-After``); other 4xx answers fail at once (400, 413 and 422 as a
    :class:`~hopkit.errors.RequestRefusedError`, which a rerun repeats). Nothing is sent and no
    environment variable is read until the first call.

    Several base URLs make one model of a server farm: each request goes to the
    server with the fewest requests in flight, and a server that fails (429, 5xx,
    time-out, unreachable) is skipped for a while as the others serve; see
    :mod:`hopkit.llm.endpoint_pool`. Calls from several threads run at once.

    Scoring (:meth:`score_continuations`) asks for one token with its ``top_logprobs``
    most likely alternatives (completions: ``logprobs: k``; chat: ``logprobs: true,
    top_logprobs: k``) and reads the candidates among them; see :mod:`hopkit.llm.logprobs`
    for candidates outside the top-k (floored) and multi-token ones (refused).

    Args:
        base_url: the server, with or without the trailing ``/v1``; for a farm, several (a list, or one
            string with the URLs separated by commas or spaces).
        model: the model name the server knows.
        api_key: bearer token; ``None`` reads ``OPENAI_API_KEY`` at call time (local servers need none).
        endpoint: ``"completions"`` (raw text continuation) or ``"chat"`` (the prompt as one user message).
        context_length: the model's context window in tokens (the server does not report it).
        timeout: seconds to connect, and to wait for each part of the reply.
        deadline: seconds a whole request may take, connect to last byte (a server that trickles its
            headers or its reply slower than ``timeout`` but never stops is cut off here: its connection is
            shut down); a farm moves the request to another server. ``None``: ``3 * timeout``.
        max_reply_bytes: the largest reply read; a longer one (a server sending without end) is cut
            off and counted as that server's failure.
        max_retries: retries after the first attempt.
        backoff: seconds before the first retry, doubled for each further one.
        top_logprobs: how many alternatives a scoring request asks for (OpenAI allows 20 in chat
            and 5 on its completions endpoint; vLLM 20 unless started with a larger ``--max-logprobs``).

    Raises:
        LLMError: an invalid option.
    """

    def __init__(self, base_url: str | list[str], model: str, *, api_key: str | None = None,
                 endpoint: Endpoint = "completions", context_length: PositiveInt = 8192,
                 timeout: PositiveFloat = 60, deadline: PositiveFloat | None = None,
                 max_reply_bytes: PositiveInt = MAX_REPLY_BYTES, max_retries: NonNegativeInt = 4,
                 backoff: NonNegativeFloat = 1.0, top_logprobs: PositiveInt = 20) -> None:
        base_urls = split_base_urls(base_url)
        if not model:
            raise LLMError(f"OpenAICompatibleLLM for {', '.join(base_urls)} needs a model name")
        if endpoint not in _PATHS:
            raise LLMError(f"endpoint must be 'completions' or 'chat', got {endpoint!r}")
        if (context_length < 1 or timeout <= 0 or max_retries < 0 or backoff < 0 or top_logprobs < 1
                or (deadline is not None and deadline <= 0) or max_reply_bytes < 1):
            raise LLMError(f"invalid options for {base_url}: context_length={context_length} (>= 1), "
                           f"timeout={timeout} (> 0), deadline={deadline} (> 0 or null), max_reply_bytes="
                           f"{max_reply_bytes} (>= 1), max_retries={max_retries} (>= 0), backoff={backoff} (>= 0), "
                           f"top_logprobs={top_logprobs} (>= 1)")
        if api_key is not None:
            secret_token("option 'api_key'", api_key, expects="the key alone (no spaces or newline)")
        else:
            environment.openai_api_key()  # checked now, before any question; read again at each call
        self.base_urls = base_urls
        self.base_url = base_urls[0]
        self.model = model
        self.api_key = api_key
        self.endpoint: Endpoint = endpoint
        self.context_length = context_length
        self.timeout = timeout
        self.deadline = deadline if deadline is not None else DEADLINE_READ_TIMEOUTS * timeout
        self.max_reply_bytes = max_reply_bytes
        self.max_retries = max_retries
        self.backoff = backoff
        self.top_logprobs = top_logprobs
        self.urls = tuple(endpoint_url(url, endpoint) for url in base_urls)
        self.url = self.urls[0] if len(self.urls) == 1 else f"{len(self.urls)} servers ({', '.join(self.urls)})"
        self.endpoints = EndpointPool(self.urls)
        self.model_id = model if endpoint == "completions" else f"{model}@chat"
        chat = {CHAT} if endpoint == "chat" else set()
        self.capabilities: frozenset[str] = frozenset({SCORING, SAMPLING, CONCURRENT_CALLS, *chat})
        self._clients = ClientPool(self.timeout)

    def complete(self, prompt: str, *, stop: Sequence[str] = (), max_tokens: int = 256,
                 temperature: float = 0.0) -> Completion:
        """Send one completion request (retrying transient failures).

        Args:
            prompt: the text to continue (chat endpoint: the user message).
            stop: generation stops before the first of these; they are not in the text.
            max_tokens: at most this many new tokens.
            temperature: 0 for (near-)greedy decoding.

        Returns:
            The completion, with token counts from the response's ``usage`` (estimated if absent)
            and the server's ``finish_reason``.

        Raises:
            LLMServerError: the server kept failing (429, 5xx, time-out, no whole reply within the
                deadline, a reply over ``max_reply_bytes``, unreachable, connection dropped or reply cut
                short) past the retries.
            RequestRefusedError: the server refused the request as sent (HTTP 400, 413 or 422: a prompt
                longer than the model's context, say), which a rerun repeats.
            LLMError: the server refused the request otherwise (401, 403, 404 ...), answered something
                unreadable, answered with no text (null content) or withheld the answer (content filter).
        """
        return self._request(self._prompt_payload(prompt), prompt, stop, max_tokens, temperature)

    def complete_sample(self, prompt: str, sample: int, *, stop: Sequence[str] = (), max_tokens: int = 256,
                        temperature: float = 1.0) -> Completion:
        """:meth:`complete` with ``seed: sample`` in the request (vLLM, llama.cpp's servers and OpenAI take
        it; OpenAI repeats a seeded sample only on a best-effort basis).

        Raises:
            LLMError: a negative ``sample``, or :meth:`complete`'s errors.
        """
        if sample < 0:
            raise LLMError(f"{self!r}: sample must be >= 0, got {sample}")
        return self._request({**self._prompt_payload(prompt), "seed": sample}, prompt, stop, max_tokens, temperature)

    def complete_chat(self, messages: Sequence[ChatMessage], *, stop: Sequence[str] = (), max_tokens: int = 256,
                      temperature: float = 0.0) -> Completion:
        """Send the turns to the chat endpoint (the ``"chat"`` capability, with ``endpoint="chat"``).

        A last assistant message is continued: the request also says ``continue_final_message`` and
        no ``add_generation_prompt`` (vLLM's names; llama.cpp's server continues such a message itself).

        Raises:
            LLMError: the model was configured for the completions endpoint, or :meth:`complete`'s errors.
        """
        if CHAT not in self.capabilities:
            raise missing_capability(self, CHAT, purpose="a chat prompt (configure endpoint: chat)")
        if not messages:
            raise LLMError("a chat needs at least one message")
        payload: dict[str, Any] = {"messages": [m.as_dict() for m in messages]}
        if messages[-1].role == "assistant":
            payload.update(continue_final_message=True, add_generation_prompt=False)
        return self._request(payload, " ".join(m.content for m in messages), stop, max_tokens, temperature)

    def _prompt_payload(self, prompt: str) -> dict[str, Any]:
        """The request's text: the prompt, or on the chat endpoint one user message holding it."""
        if self.endpoint == "chat":
            return {"messages": [ChatMessage("user", prompt).as_dict()]}
        return {"prompt": prompt}

    def _request(self, payload: dict[str, Any], prompt_text: str, stop: Sequence[str], max_tokens: int,
                 temperature: float) -> Completion:
        body: dict[str, Any] = {"model": self.model, "max_tokens": max_tokens, "temperature": temperature, **payload}
        stops = [s for s in stop if s]
        if stops:
            body["stop"] = stops
        started = time.perf_counter()
        url, data = retry_call(lambda: self._post(body), url=self.url, max_retries=self.max_retries,
                               backoff=self.backoff)
        seconds = time.perf_counter() - started
        raw_text, finish_reason = self._text_of(url, data, max_tokens)
        text = cut_at_stop(raw_text, stops)
        usage = data.get("usage") or {}
        details = usage.get("prompt_tokens_details") or {}
        return Completion(
            text=text,
            prompt_tokens=int(usage.get("prompt_tokens") or estimate_tokens(prompt_text)),
            completion_tokens=int(usage.get("completion_tokens") or estimate_tokens(text)),
            seconds=seconds,
            cached_prompt_tokens=int(details.get("cached_tokens") or 0),
            finish_reason=finish_reason,
        )

    def score_continuations(self, prompt: str, candidates: Sequence[str]) -> Scores:
        """The log-probability of each candidate as the first token after ``prompt`` (chat: of the reply).

        Args:
            prompt: the text to continue (chat endpoint: the user message).
            candidates: single tokens of the server's model, e.g. ``" yes"`` and ``" no"`` after a
                completions prompt, ``"yes"`` and ``"no"`` as the start of a chat reply.

        Returns:
            The scores; a candidate outside the returned top-k has a floor value and its
            ``floored`` flag set (see :mod:`hopkit.llm.logprobs`).

        Raises:
            LLMServerError: the server kept failing past the retries.
            LLMError: no candidates, a candidate of several words, a server that refused the
                request or returned no log-probabilities.
        """
        chosen = check_candidates(candidates, backend=repr(self))
        check_single_position(chosen, backend=repr(self))
        body: dict[str, Any] = {"model": self.model, "max_tokens": 1, "temperature": 0.0}
        if self.endpoint == "chat":
            body.update(messages=[{"role": "user", "content": prompt}], logprobs=True, top_logprobs=self.top_logprobs)
        else:
            body.update(prompt=prompt, logprobs=self.top_logprobs, echo=False)
        started = time.perf_counter()
        try:
            url, data = retry_call(lambda: self._post(body), url=self.url, max_retries=self.max_retries,
                                   backoff=self.backoff)
        except LLMServerError:
            raise
        except LLMError as exc:  # a refusal stays one: the same request is refused again
            raise type(exc)(f"{exc}; this was a scoring request for top_logprobs={self.top_logprobs}: the server "
                           "may not offer log-probabilities or may allow fewer (OpenAI's completions endpoint "
                           "allows 5: pass top_logprobs=5)") from exc
        seconds = time.perf_counter() - started
        try:
            logprobs = data["choices"][0].get("logprobs")
        except (KeyError, IndexError, TypeError, AttributeError) as exc:
            raise LLMError(f"{url} answered a scoring request without choices[0]: {str(data)[:300]}") from exc
        values, floored = first_token_scores(top_of_first_position(logprobs, where=url), chosen)
        usage = data.get("usage") or {}
        details = usage.get("prompt_tokens_details") or {}
        return Scores(candidates=chosen, logprobs=values, seconds=seconds, floored=floored,
                      prompt_tokens=int(usage.get("prompt_tokens") or estimate_tokens(prompt)),
                      cached_prompt_tokens=int(details.get("cached_tokens") or 0))

    def count_tokens(self, text: str) -> int:
        """Estimate of the token count (the server's tokenizer is remote); see ``estimate_tokens``."""
        return estimate_tokens(text)

    def close(self) -> None:
        """Close the HTTP connections (a later call opens new ones; one in flight closes its own when done)."""
        self._clients.close()

    def __enter__(self) -> OpenAICompatibleLLM:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        urls = self.urls[0] if len(self.urls) == 1 else list(self.urls)
        return f"OpenAICompatibleLLM(url={urls!r}, model={self.model!r})"

    def _headers(self) -> dict[str, str]:
        key = self.api_key if self.api_key is not None else environment.openai_api_key()
        return {"Authorization": f"Bearer {key}"} if key else {}

    def _post(self, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """One attempt, moving on to the next awake server when one fails; returns the URL that answered.

        Raises:
            TransientError: every server tried failed in a way worth retrying (the last one's error).
        """
        return self.endpoints.call(lambda url: self._post_to(url, body))

    def _post_to(self, url: str, body: dict[str, Any]) -> dict[str, Any]:
        """One request to one server; raises TransientError for what is worth retrying."""
        deadline = time.monotonic() + self.deadline
        try:
            with self._clients.stream("POST", url, deadline=self.deadline, json=body,
                                      headers=self._headers()) as response:
                reply = self._read_reply(response, deadline)
        except httpx.TimeoutException as exc:
            raise TransientError(f"no answer within timeout={self.timeout}s ({type(exc).__name__})") from exc
        except httpx.UnsupportedProtocol as exc:
            raise LLMError(f"{url}: {exc}") from exc
        except httpx.TransportError as exc:
            raise TransientError(f"connection failed ({type(exc).__name__}: {exc})") from exc
        status = response.status_code
        if status == 429 or status >= 500:
            raise TransientError(f"HTTP {status}: {_server_message(reply, response.reason_phrase)}",
                                 retry_after=parse_retry_after(response.headers.get("retry-after")))
        if status >= 400:
            refused = RequestRefusedError if status in REFUSED_AS_SENT else LLMError
            raise refused(f"{url} refused the request with HTTP {status}: "
                          f"{_server_message(reply, response.reason_phrase)}{_HINTS.get(status, '')}")
        try:
            data = json.loads(reply)
        except ValueError as exc:
            raise LLMError(f"{url} answered HTTP {status} with a body that is not JSON: "
                           f"{reply[:200].decode('utf-8', 'replace')!r}") from exc
        if not isinstance(data, dict):
            raise LLMError(f"{url} answered with JSON that is not an object: {str(data)[:200]}")
        return data

    def _read_reply(self, response: httpx.Response, deadline: float) -> bytes:
        """The reply's body, read part by part until it ends, the deadline passes or it grows too large.

        Raises:
            TransientError: the deadline passed, or the reply is larger than ``max_reply_bytes``.
        """
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_reply_bytes:
            raise TransientError(f"the reply announces {int(declared):,} bytes, more than max_reply_bytes="
                                 f"{self.max_reply_bytes:,}")
        body = bytearray()
        for part in response.iter_bytes():
            body += part
            if len(body) > self.max_reply_bytes:
                raise TransientError(f"the reply grew past max_reply_bytes={self.max_reply_bytes:,} without ending")
            if time.monotonic() > deadline:
                raise TransientError(f"no whole reply within deadline={self.deadline:g}s ({len(body):,} bytes "
                                     "came, slower than the server should send them)")
        return bytes(body)

    def _text_of(self, url: str, data: dict[str, Any], max_tokens: int) -> tuple[str, str | None]:
        """The generated text and the finish reason; a null or filtered answer is an error, not ""."""
        field = "message.content" if self.endpoint == "chat" else "text"
        try:
            choice = data["choices"][0]
            text = choice["message"]["content"] if self.endpoint == "chat" else choice["text"]
        except (KeyError, IndexError, TypeError) as exc:
            raise LLMError(f"{url} answered without the expected choices[0].{field}: "
                           f"{str(data)[:300]}") from exc
        reason = choice.get("finish_reason") if isinstance(choice, dict) else None
        finish_reason = reason if isinstance(reason, str) else None
        if finish_reason == "content_filter":
            raise LLMError(f"{url} withheld the answer (finish_reason 'content_filter': the server's content "
                           "filter blocked the prompt or the reply)")
        if not isinstance(text, str):
            hint = (f": the model used all max_tokens={max_tokens} before answering (a reasoning model?); "
                    "raise max_tokens" if finish_reason == "length" else "")
            raise LLMError(f"{url} answered with no text (choices[0].{field} is {text!r}, finish_reason "
                           f"{finish_reason!r}){hint}")
        return text, finish_reason
