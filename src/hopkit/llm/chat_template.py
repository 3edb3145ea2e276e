"""Chat turns laid out by a GGUF model's own chat template, as a prompt to continue.

Instruct models are trained on their chat template (system and user turns wrapped in
special tokens, then the assistant's turn opened). The template is a Jinja program
stored in the GGUF file's metadata (``tokenizer.chat_template``); llama-cpp-python's
sandboxed Jinja formatter renders it, so the prompt is what the model's authors
intended, and it then goes through the ordinary completion path (prefix reuse,
counters, stop sequences).
"""

from __future__ import annotations

from typing import Any, Sequence

from hopkit.errors import LLMError
from hopkit.llm.protocol import ChatMessage

TEMPLATE_KEY = "tokenizer.chat_template"


class ChatTemplate:
    """Renders chat turns with one model's template.

    Args:
        template: the Jinja source.
        bos_token: the model's begin-of-sequence text (some templates write it).
        eos_token: its end-of-sequence text.
        tokenizer_adds_bos: whether the tokenizer puts the BOS token first itself; then a
            BOS text the template writes first is left out, so it is not there twice.
    """

    def __init__(self, template: str, bos_token: str, eos_token: str, *, tokenizer_adds_bos: bool = True) -> None:
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        self.bos_token = bos_token if tokenizer_adds_bos else ""
        self._formatter = Jinja2ChatFormatter(template=template, eos_token=eos_token, bos_token=bos_token,
                                              add_generation_prompt=True)

    def render(self, messages: Sequence[ChatMessage]) -> str:
        """The prompt: every turn, then the assistant's turn opened for the model to write.

        A begin-of-sequence text the template writes first is left out when the
        tokenizer adds the token itself (SmolLM2's BOS is ``<|im_start|>``: the first turn's
        marker then comes from the tokenizer).

        Raises:
            LLMError: no messages, or the template rejects them (e.g. a role it does not know).
        """
        if not messages:
            raise LLMError("a chat needs at least one message")
        try:
            prompt = self._formatter(messages=[m.as_dict() for m in messages]).prompt
        except Exception as exc:  # a template's raise_exception() or a Jinja error: the template's words
            raise LLMError(f"the model's chat template rejected the messages: {exc}") from exc
        if self.bos_token and prompt.startswith(self.bos_token):
            prompt = prompt[len(self.bos_token):]
        return prompt

    def render_continuing(self, messages: Sequence[ChatMessage]) -> str:
        """:meth:`render`, except that a last assistant message is the assistant's turn begun: the
        turns before it, the turn opened, and its text, for the model to continue.

        Raises:
            LLMError: as :meth:`render`, or only an assistant message.
        """
        if not messages or messages[-1].role != "assistant":
            return self.render(messages)
        if len(messages) == 1:
            raise LLMError("a chat cannot begin with the assistant's turn: give the turns it answers")
        return self.render(messages[:-1]) + messages[-1].content


def chat_template_of(model: Any) -> ChatTemplate | None:
    """The chat template of a loaded ``llama_cpp.Llama``, or None when its GGUF has none."""
    metadata = getattr(model, "metadata", None) or {}
    template = metadata.get(TEMPLATE_KEY)
    if not isinstance(template, str) or not template.strip():
        return None
    bos = model.token_bos()
    adds_bos = bos is not None and bos >= 0 and model.tokenize(b"", add_bos=True, special=True)[:1] == [bos]
    return ChatTemplate(template, _token_text(model, bos), _token_text(model, model.token_eos()),
                        tokenizer_adds_bos=adds_bos)


def _token_text(model: Any, token: int) -> str:
    if token is None or token < 0:
        return ""
    return model.detokenize([token], special=True).decode("utf-8", errors="ignore")
