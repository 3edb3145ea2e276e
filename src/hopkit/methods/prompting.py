"""The context rule every method's model calls keep (:func:`fits`, :func:`check_fits`), and demonstration
fitting: as many of the IRCoT authors' demonstrations as the context holds.

The prompt text itself (paragraph blocks, the question tail, the test instance) is
laid out by :mod:`hopkit.prompts.layout`.
"""

from __future__ import annotations

from typing import Sequence

from hopkit.errors import ContextFullError
from hopkit.llm.protocol import LLM
from hopkit.prompts.layout import DEMONSTRATION_SEPARATOR


class DemonstrationFitter:
    """Keeps as many demonstrations as fit in the model's context, as the IRCoT authors did.

    Demonstrations are dropped from the end until demonstrations + test instance +
    ``reserve`` generation tokens fit in ``llm.context_length``. Token counts of each
    demonstration are computed once and remembered.
    """

    def __init__(self, llm: LLM, demonstrations: Sequence[str]) -> None:
        self.llm = llm
        self.demonstrations = tuple(d.strip() for d in demonstrations if d.strip())
        self._sizes: list[int] | None = None

    def _demo_sizes(self) -> list[int]:
        if self._sizes is None:
            separator = self.llm.count_tokens(DEMONSTRATION_SEPARATOR)
            self._sizes = [self.llm.count_tokens(d) + separator for d in self.demonstrations]
        return self._sizes

    def count_fitting(self, instance_tokens: int, reserve: int, per_demonstration: int = 0) -> int:
        """How many demonstrations (from the first) fit beside a test instance of
        ``instance_tokens`` tokens with ``reserve`` tokens left for generation; 0 when
        even the instance does not fit. ``per_demonstration`` tokens are added to each
        (a chat template's turn markers)."""
        budget = self.llm.context_length - reserve - instance_tokens
        kept = 0
        for size in self._demo_sizes():
            size += per_demonstration
            if size > budget:
                break
            kept += 1
            budget -= size
        return kept

    def join(self, count: int, test_instance: str) -> str:
        """The first ``count`` demonstrations, then ``test_instance``."""
        return DEMONSTRATION_SEPARATOR.join([*self.demonstrations[:count], test_instance])

    def prompt(self, test_instance: str, reserve: int) -> str:
        """Demonstrations that fit, then ``test_instance``.

        Raises:
            ContextFullError: if the test instance alone does not fit in the context.
        """
        instance_tokens = self.llm.count_tokens(test_instance)
        check_fits(self.llm, instance_tokens, reserve)
        return self.join(self.count_fitting(instance_tokens, reserve), test_instance)


def fitted(llm: LLM, prompt: str, reserve: int) -> str:
    """``prompt``, once :func:`check_fits` has found that it leaves ``reserve`` tokens of the context.

    Raises:
        ContextFullError: it does not.
    """
    check_fits(llm, llm.count_tokens(prompt), reserve)
    return prompt


def fits(llm: LLM, prompt_tokens: int, reserve: int) -> bool:
    """Whether a prompt of ``prompt_tokens`` leaves ``reserve`` tokens (the call's generation) of the context."""
    return prompt_tokens + reserve <= llm.context_length


def check_fits(llm: LLM, prompt_tokens: int, reserve: int) -> None:
    """Raise unless a prompt of ``prompt_tokens`` leaves ``reserve`` tokens of the context.

    The one context rule of every method, for every model call it makes: no prompt is sent that does not
    leave the call's generation budget in the model's context. A method first leaves out what it can
    (demonstrations, the oldest paragraphs, the oldest turns); the search agents, which have a forced
    answer, end their loop where the next call would not fit and force it (their trace says
    ``context_full``); any other call that still does not fit raises this, failing the question with one
    error, never the backend's refusal.

    Raises:
        ContextFullError: naming the sizes, the model and what to change (a failure a rerun repeats).
    """
    if not fits(llm, prompt_tokens, reserve):
        raise ContextFullError(
            f"the prompt needs {prompt_tokens + reserve} tokens with {reserve} reserved "
            f"for generation, more than the context of {llm.context_length} tokens of "
            f"{llm.model_id}; lower the paragraph budget or use a longer context"
        )

