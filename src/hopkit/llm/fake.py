"""A scripted language model for unit tests: answers from a list or a function."""

from __future__ import annotations

from typing import Callable, Sequence

from hopkit.errors import LLMError
from hopkit.llm.protocol import Completion


class ScriptedLLM:
    """Returns scripted completions and records every prompt it was given.

    Args:
        script: either the completions to return in order, or a function from the
            prompt to the completion.
        context_length: the context window it claims (tokens are whitespace words).

    The text is cut at the first stop sequence, as a real backend would.
    """

    model_id = "scripted"
    supports_concurrency = False  # a scripted list is answered in call order

    def __init__(self, script: Sequence[str] | Callable[[str], str], *, context_length: int = 8192) -> None:
        self.script = script
        self.context_length = context_length
        self.prompts: list[str] = []

    def complete(self, prompt: str, *, stop: Sequence[str] = (), max_tokens: int = 256,
                 temperature: float = 0.0) -> Completion:
        if callable(self.script):
            text = self.script(prompt)
        else:
            if len(self.prompts) >= len(self.script):
                raise LLMError(f"ScriptedLLM ran out of its {len(self.script)} scripted completions")
            text = self.script[len(self.prompts)]
        self.prompts.append(prompt)
        for sequence in stop:
            if sequence and sequence in text:
                text = text[: text.index(sequence)]
        return Completion(text=text, prompt_tokens=self.count_tokens(prompt),
                          completion_tokens=self.count_tokens(text), seconds=0.0)

    def count_tokens(self, text: str) -> int:
        return len(text.split())
