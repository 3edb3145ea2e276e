"""A scripted OpenAI-compatible server on 127.0.0.1, for tests and offline examples.

It answers ``POST /v1/completions`` and ``POST /v1/chat/completions`` (with or
without the ``/v1``) from a list of replies or a function of the prompt, applies
stop sequences like a real server, reports ``usage`` in whitespace words, and can
be told to fail or stall its first requests to exercise client retries::

    with serve_fake_openai(["Paris."]) as server:
        llm = OpenAICompatibleLLM(server.base_url, "fake-model")
        llm.complete("Q: capital of France?\\nA:")   # -> "Paris."
        server.requests[0].body["prompt"]

It can also misbehave on chosen requests, one :class:`Fault` per request (a list
by request number, or a function of the request number and the prompt): HTTP
errors, hangs, dropped connections, bodies cut mid-way, malformed JSON, null,
empty, filtered or truncated answers, slow answers. ``answered`` lists every reply
the server finished sending, with the time it was sent::

    faults = [Fault("status", status=503), Fault("null")]   # requests 1 and 2 misbehave
    with serve_fake_openai(lambda prompt: "Paris.", faults=faults) as server:
        ...

Given ``logprobs`` (next-token log-probabilities, or a function of the prompt to them),
a request asking for log-probabilities (completions: ``logprobs: k``; chat: ``logprobs:
true, top_logprobs: k``) gets the likeliest token as its text and the top ``k`` in that
endpoint's format, without using up the script; without them, ``"logprobs": null``::

    with serve_fake_openai([], logprobs={" yes": -0.1, " no": -2.4}) as server:
        OpenAICompatibleLLM(server.base_url, "m").score_continuations("Is it? Answer:", [" yes", " no"])
"""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Mapping, Sequence

from hopkit.errors import ConfigError
from hopkit.llm.testing_faults import (ANSWERING_FAULTS, FAULT_KINDS, Fault, FaultSchedule, send_endless,
                                       send_trickling, send_trickling_headers)
from hopkit.llm.text import cut_at_stop

__all__ = ["FAULT_KINDS", "AnsweredRequest", "FakeOpenAIServer", "Fault", "RecordedRequest", "serve_fake_openai"]

logger = logging.getLogger(__name__)

_COMPLETIONS = ("/v1/completions", "/completions")
_CHAT = ("/v1/chat/completions", "/chat/completions")

LogprobTable = Mapping[str, float] | Callable[[str], Mapping[str, float]]


@dataclass(frozen=True)
class RecordedRequest:
    """One request the fake server received (failed and stalled ones included)."""

    path: str
    body: dict[str, Any]
    prompt: str
    headers: dict[str, str]
    client_port: int = 0  # the connection it came on


@dataclass(frozen=True)
class AnsweredRequest:
    """A 200 reply the server finished sending: the ``number``-th request, the text sent
    (``None`` for a null one), its finish reason and ``sent_at`` (``time.monotonic()``)."""

    number: int
    prompt: str
    text: str | None
    finish_reason: str
    sent_at: float


@dataclass(frozen=True)
class _Plan:
    """What the handler does with one request."""

    status: int
    payload: dict[str, Any] = field(default_factory=dict)
    raw: bytes | None = None  # a body sent as is instead of the JSON payload
    wait: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    transport: str | None = None  # "hang", "drop", "truncated_body", "trickle", "endless" or "trickle_headers"
    pause: float = 0.0  # a trickle's seconds between bytes (or header lines)
    answered: AnsweredRequest | None = None  # recorded once the reply is fully sent


def _logprobs_asked(path: str, body: dict[str, Any]) -> int | None:
    """How many alternatives a request asks log-probabilities for (``None``: it asks for none)."""
    requested = body.get("logprobs")
    if path in _CHAT:
        return int(body.get("top_logprobs") or 0) if requested is True else None
    return int(requested) if isinstance(requested, int) and not isinstance(requested, bool) else None


def _logprobs_payload(path: str, top: list[tuple[str, float]], prompt: str) -> dict[str, Any]:
    """The ``logprobs`` of a one-token reply: ``top[0]`` chosen, the rest its alternatives."""
    token, value = top[0]
    if path in _CHAT:
        entries = [{"token": t, "logprob": v, "bytes": list(t.encode("utf-8"))} for t, v in top]
        return {"content": [{**entries[0], "top_logprobs": entries}], "refusal": None}
    return {"tokens": [token], "token_logprobs": [value], "top_logprobs": [dict(top)], "text_offset": [len(prompt)]}


def _prompt_of(path: str, body: dict[str, Any]) -> str:
    """The prompt text of a request: ``prompt``, or the chat messages' text joined by newlines."""
    if path in _CHAT:
        parts = []
        for message in body.get("messages") or []:
            content = message.get("content", "")
            if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}]
                content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
            parts.append(str(content))
        return "\n".join(parts)
    prompt = body.get("prompt", "")
    return prompt[0] if isinstance(prompt, list) and prompt else str(prompt)


class FakeOpenAIServer:
    """A loopback OpenAI-compatible server answering from a script.

    Args:
        script: the replies in order, or a function from the prompt to the reply.
        fail_first: answer the first ``fail_first`` requests with ``fail_status``.
        fail_status: the status of those failures (e.g. 500, 503, 429).
        retry_after: if set, the failures carry ``Retry-After: <retry_after>``.
        stall_first: after the failures, the next ``stall_first`` requests wait
            ``stall_seconds`` before answering 503 (to make clients time out).
        stall_seconds: how long a stalled request waits.
        usage: include a ``usage`` object in the replies.
        faults: how to misbehave on each request after the failed and stalled ones:
            a list (``faults[n - 1]`` for the n-th request; ``None`` or past the end:
            answer normally) or a function of (request number, prompt).
        logprobs: next-token log-probabilities for requests that ask for them: a mapping
            from token text to log-probability, or a function from the prompt to one.

    Failed and stalled requests do not use up the script, nor do faults other than
    ``"length"`` and ``"delay"``. When a list script runs out the server answers 400.
    Call :meth:`start` (or use :func:`serve_fake_openai`).
    """

    def __init__(self, script: Sequence[str] | Callable[[str], str], *, fail_first: int = 0,
                 fail_status: int = 500, retry_after: float | None = None, stall_first: int = 0,
                 stall_seconds: float = 1.0, usage: bool = True, faults: FaultSchedule = (),
                 logprobs: LogprobTable | None = None) -> None:
        if fail_first < 0 or stall_first < 0 or not 400 <= fail_status <= 599:
            raise ConfigError(f"fake server: need fail_first >= 0, stall_first >= 0, 400 <= fail_status <= 599; got "
                             f"{fail_first}, {stall_first}, {fail_status}")
        self.script = script
        self.fail_first = fail_first
        self.fail_status = fail_status
        self.retry_after = retry_after
        self.stall_first = stall_first
        self.stall_seconds = stall_seconds
        self.usage = usage
        self.faults = faults
        self.logprobs = logprobs
        self.requests: list[RecordedRequest] = []
        self.answered: list[AnsweredRequest] = []
        self._replies = 0
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1``, as OpenAI clients expect."""
        if self._httpd is None:
            raise ConfigError("the fake server is not started: call start() first")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self) -> FakeOpenAIServer:
        """Bind a free port on 127.0.0.1 and serve in a daemon thread."""
        handler = type("Handler", (_Handler,), {"fake": self})
        self._closing.clear()
        self._httpd = _Listener(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="fake-openai", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving, end hanging requests and free the port."""
        self._closing.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self if self._httpd is not None else self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _fault_for(self, number: int, prompt: str) -> Fault | None:
        """The fault scheduled for the ``number``-th request (1-based), if any."""
        if callable(self.faults):
            return self.faults(number, prompt)
        index = number - 1 - self.fail_first - self.stall_first
        return self.faults[index] if 0 <= index < len(self.faults) else None

    def _decide(self, path: str, body: dict[str, Any], headers: dict[str, str], client_port: int = 0) -> _Plan:
        """Decide what to do with one request (and record it)."""
        prompt = _prompt_of(path, body)
        with self._lock:
            self.requests.append(RecordedRequest(path=path, body=body, prompt=prompt, headers=headers,
                                                 client_port=client_port))
            number = len(self.requests)
            if number <= self.fail_first:
                extra = {} if self.retry_after is None else {"Retry-After": f"{self.retry_after:g}"}
                return _Plan(self.fail_status, _error(f"scripted failure {number} of {self.fail_first}"),
                             headers=extra)
            if number <= self.fail_first + self.stall_first:
                return _Plan(503, _error("stalled on purpose"), wait=self.stall_seconds)
        fault = self._fault_for(number, prompt)
        top_k = _logprobs_asked(path, body)
        with self._lock:
            if fault is not None and fault.kind not in ANSWERING_FAULTS:
                return self._misbehave(path, body, prompt, number, fault)
            if top_k is not None and self.logprobs is not None:
                return self._scored(path, body, prompt, number, top_k, fault)
            if callable(self.script):
                text = None
            elif self._replies < len(self.script):
                text = self.script[self._replies]
            else:
                return _Plan(400, _error(f"the fake server ran out of its {len(self.script)} scripted replies"))
            self._replies += 1
        if text is None:
            text = self.script(prompt)  # type: ignore[operator]
        stop = body.get("stop") or []
        text = cut_at_stop(text, [stop] if isinstance(stop, str) else stop)
        wait, finish_reason = 0.0, "stop"
        if fault is not None and fault.kind == "length":
            words = text.split(" ")
            text, finish_reason = " ".join(words[: len(words) // 2]), "length"
        elif fault is not None and fault.kind == "trickle":
            return _Plan(200, self._reply(path, body, prompt, text, number, finish_reason), transport="trickle",
                         pause=fault.seconds, answered=AnsweredRequest(number, prompt, text, finish_reason, 0.0))
        elif fault is not None:  # "delay"
            wait = fault.seconds
        return _Plan(200, self._reply(path, body, prompt, text, number, finish_reason), wait=wait,
                     answered=AnsweredRequest(number, prompt, text, finish_reason, 0.0))

    def _scored(self, path: str, body: dict[str, Any], prompt: str, number: int, top_k: int,
                fault: Fault | None) -> _Plan:
        """A one-token reply with the log-probabilities of the ``top_k`` likeliest tokens (lock held)."""
        table = self.logprobs(prompt) if callable(self.logprobs) else self.logprobs
        if not table:
            return _Plan(400, _error("the fake server's logprobs table is empty for this prompt"))
        top = sorted(table.items(), key=lambda item: -item[1])[: max(top_k, 1)]
        reply = self._reply(path, body, prompt, top[0][0], number, "length")
        reply["choices"][0]["logprobs"] = _logprobs_payload(path, top, prompt)
        wait = fault.seconds if fault is not None and fault.kind == "delay" else 0.0
        return _Plan(200, reply, wait=wait, answered=AnsweredRequest(number, prompt, top[0][0], "length", 0.0))

    def _misbehave(self, path: str, body: dict[str, Any], prompt: str, number: int, fault: Fault) -> _Plan:
        """The plan of a fault that does not use the script (called with the lock held)."""
        kind = fault.kind
        if kind == "status":
            return _Plan(fault.status, _error(f"fault injected into request {number}: HTTP {fault.status}"))
        if kind in ("hang", "drop"):
            return _Plan(200, transport=kind, wait=fault.seconds if kind == "hang" else 0.0)
        if kind == "malformed":
            return _Plan(200, raw=b'{"id": "cmpl-broken", "choices": [{"text": "Par')
        if kind == "endless":
            return _Plan(200, transport=kind)
        if kind == "trickle_headers":
            return _Plan(200, transport=kind, pause=fault.seconds)
        text = self.script(prompt) if callable(self.script) else "scripted reply"
        if kind == "truncated_body":
            return _Plan(200, self._reply(path, body, prompt, text, number, "stop"), transport=kind)
        reply_text: str | None = "" if kind == "empty" else None
        finish_reason = "content_filter" if kind == "content_filter" else "stop"
        return _Plan(200, self._reply(path, body, prompt, reply_text, number, finish_reason),
                     answered=AnsweredRequest(number, prompt, reply_text, finish_reason, 0.0))

    def _reply(self, path: str, body: dict[str, Any], prompt: str, text: str | None, number: int,
               finish_reason: str) -> dict[str, Any]:
        if path in _CHAT:
            choice: dict[str, Any] = {"index": 0, "message": {"role": "assistant", "content": text},
                                      "finish_reason": finish_reason, "logprobs": None}
            reply: dict[str, Any] = {"id": f"chatcmpl-{number}", "object": "chat.completion"}
        else:
            choice = {"index": 0, "text": text, "finish_reason": finish_reason, "logprobs": None}
            reply = {"id": f"cmpl-{number}", "object": "text_completion"}
        reply.update({"created": int(time.time()), "model": body.get("model", "fake-model"), "choices": [choice]})
        if self.usage:
            prompt_tokens, completion_tokens = len(prompt.split()), len((text or "").split())
            reply["usage"] = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                              "total_tokens": prompt_tokens + completion_tokens}
        return reply

    def _record_answer(self, answered: AnsweredRequest) -> None:
        with self._lock:
            self.answered.append(AnsweredRequest(answered.number, answered.prompt, answered.text,
                                                 answered.finish_reason, time.monotonic()))


def _error(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "fake_server_error", "code": None}}


class _Listener(ThreadingHTTPServer):
    request_queue_size = 128  # dozens of clients connect at once; the default backlog of 5 makes them retry


class _Handler(BaseHTTPRequestHandler):
    fake: FakeOpenAIServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out as two writes; Nagle would hold the body ~40 ms

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        path = self.path.split("?", 1)[0].rstrip("/")
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if path not in _COMPLETIONS + _CHAT:
            self._send(404, json.dumps(_error(f"no such endpoint {path}; try /v1/completions or "
                                              "/v1/chat/completions")).encode("utf-8"))
            return
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send(400, json.dumps(_error("request body is not JSON")).encode("utf-8"))
            return
        plan = self.fake._decide(path, body, {k.lower(): v for k, v in self.headers.items()}, self.client_address[1])
        if plan.wait:
            self.fake._closing.wait(plan.wait)  # close() ends every wait at once
        if plan.transport in ("hang", "drop"):
            self.close_connection = True  # the connection closes with no response at all
            return
        data = plan.raw if plan.raw is not None else json.dumps(plan.payload).encode("utf-8")
        if plan.transport == "truncated_body":
            self._send(plan.status, data, plan.headers, cut=len(data) // 2)
            self.close_connection = True
            return
        if plan.transport == "endless":
            send_endless(self, self.fake._closing)
            return
        if plan.transport == "trickle_headers":
            send_trickling_headers(self, plan.pause, self.fake._closing)
            return
        if plan.transport == "trickle":
            if send_trickling(self, data, plan.pause, self.fake._closing) and plan.answered is not None:
                self.fake._record_answer(plan.answered)
            return
        if self._send(plan.status, data, plan.headers) and plan.answered is not None:
            self.fake._record_answer(plan.answered)

    def _send(self, status: int, data: bytes, headers: dict[str, str] | None = None,
              cut: int | None = None) -> bool:
        """Send a response (only its first ``cut`` body bytes if given); whether it was all written."""
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data if cut is None else data[:cut])
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            logger.debug("client went away before the reply to %s", self.path)
            return False
        return True

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (http.server's signature)
        logger.debug("fake openai server: " + format, *args)


def serve_fake_openai(script: Sequence[str] | Callable[[str], str], **options: Any) -> FakeOpenAIServer:
    """Start a :class:`FakeOpenAIServer` (options as its constructor); use ``.base_url``, then ``.close()``.

    Returns:
        The running server; also a context manager that closes it.
    """
    return FakeOpenAIServer(script, **options).start()
