"""A scripted OpenAI-compatible server on 127.0.0.1, for tests and offline examples.

It answers ``POST /v1/completions`` and ``POST /v1/chat/completions`` (with or
without the ``/v1``) from a list of replies or a function of the prompt, applies
stop sequences like a real server, reports ``usage`` in whitespace words, and can
be told to fail or stall its first requests to exercise client retries::

    with serve_fake_openai(["Paris."]) as server:
        llm = OpenAICompatibleLLM(server.base_url, "fake-model")
        llm.complete("Q: capital of France?\\nA:")   # -> "Paris."
        server.requests[0].body["prompt"]
"""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Sequence

from hopkit.errors import ConfigError
from hopkit.llm.text import cut_at_stop

logger = logging.getLogger(__name__)

_COMPLETIONS = ("/v1/completions", "/completions")
_CHAT = ("/v1/chat/completions", "/chat/completions")


@dataclass(frozen=True)
class RecordedRequest:
    """One request the fake server received (failed and stalled ones included)."""

    path: str
    body: dict[str, Any]
    prompt: str
    headers: dict[str, str]


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

    Failed and stalled requests do not use up the script. When a list script runs
    out the server answers 400. Call :meth:`start` (or use :func:`serve_fake_openai`).
    """

    def __init__(self, script: Sequence[str] | Callable[[str], str], *, fail_first: int = 0,
                 fail_status: int = 500, retry_after: float | None = None, stall_first: int = 0,
                 stall_seconds: float = 1.0, usage: bool = True) -> None:
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
        self.requests: list[RecordedRequest] = []
        self._replies = 0
        self._lock = threading.Lock()
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
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="fake-openai", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving and free the port."""
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

    def answer(self, path: str, body: dict[str, Any],
               headers: dict[str, str]) -> tuple[int, dict[str, Any], float, dict[str, str]]:
        """Decide the reply to one request: (status, JSON body, seconds to wait first, extra headers)."""
        prompt = _prompt_of(path, body)
        with self._lock:
            self.requests.append(RecordedRequest(path=path, body=body, prompt=prompt, headers=headers))
            number = len(self.requests)
            if number <= self.fail_first:
                extra = {} if self.retry_after is None else {"Retry-After": f"{self.retry_after:g}"}
                return self.fail_status, _error(f"scripted failure {number} of {self.fail_first}"), 0.0, extra
            if number <= self.fail_first + self.stall_first:
                return 503, _error("stalled on purpose"), self.stall_seconds, {}
            if callable(self.script):
                text = None
            elif self._replies < len(self.script):
                text = self.script[self._replies]
            else:
                return 400, _error(f"the fake server ran out of its {len(self.script)} scripted replies"), 0.0, {}
            self._replies += 1
        if text is None:
            text = self.script(prompt)  # type: ignore[operator]
        stop = body.get("stop") or []
        text = cut_at_stop(text, [stop] if isinstance(stop, str) else stop)
        return 200, self._reply(path, body, prompt, text, number), 0.0, {}

    def _reply(self, path: str, body: dict[str, Any], prompt: str, text: str, number: int) -> dict[str, Any]:
        if path in _CHAT:
            choice: dict[str, Any] = {"index": 0, "message": {"role": "assistant", "content": text},
                                      "finish_reason": "stop", "logprobs": None}
            reply: dict[str, Any] = {"id": f"chatcmpl-{number}", "object": "chat.completion"}
        else:
            choice = {"index": 0, "text": text, "finish_reason": "stop", "logprobs": None}
            reply = {"id": f"cmpl-{number}", "object": "text_completion"}
        reply.update({"created": int(time.time()), "model": body.get("model", "fake-model"), "choices": [choice]})
        if self.usage:
            prompt_tokens, completion_tokens = len(prompt.split()), len(text.split())
            reply["usage"] = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                              "total_tokens": prompt_tokens + completion_tokens}
        return reply


def _error(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "fake_server_error", "code": None}}


class _Handler(BaseHTTPRequestHandler):
    fake: FakeOpenAIServer
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        path = self.path.split("?", 1)[0].rstrip("/")
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if path not in _COMPLETIONS + _CHAT:
            self._send(404, _error(f"no such endpoint {path}; try /v1/completions or /v1/chat/completions"))
            return
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send(400, _error("request body is not JSON"))
            return
        status, reply, wait, extra = self.fake.answer(path, body, {k.lower(): v for k, v in self.headers.items()})
        if wait:
            time.sleep(wait)
        self._send(status, reply, extra)

    def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            logger.debug("client went away before the reply to %s", self.path)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (http.server's signature)
        logger.debug("fake openai server: " + format, *args)


def serve_fake_openai(script: Sequence[str] | Callable[[str], str], **options: Any) -> FakeOpenAIServer:
    """Start a :class:`FakeOpenAIServer` (options as its constructor); use ``.base_url``, then ``.close()``.

    Returns:
        The running server; also a context manager that closes it.
    """
    return FakeOpenAIServer(script, **options).start()
