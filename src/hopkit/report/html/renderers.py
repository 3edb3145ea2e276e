"""Which template draws the steps of which method: one renderer per method, a generic one for the rest.

A renderer is a Jinja template under ``templates/trace/`` that defines one macro per step kind
it draws (``retrieve``, ``reason``, ``read`` ...), each called as ``macro(step, ctx)`` with a
:class:`~hopkit.report.html.trace_view.StepView` and the question's
:class:`~hopkit.report.html.trace_view.QuestionContext`. A kind the method's template does not
define, and every step of a method without a renderer, is drawn by ``trace/common.html.j2``'s
``generic`` macro: input, output, paragraphs and extra as formatted JSON.

A new method adds its template and one line to :data:`RENDERERS`.
"""

from __future__ import annotations

from typing import Any, Callable

from jinja2 import Environment
from markupsafe import Markup

from hopkit.report.html.trace_view import QuestionContext, StepView

__all__ = ["GENERIC", "RENDERERS", "StepRenderer"]

#: Method name (lower case, as runs store it) to the template drawing its steps.
RENDERERS: dict[str, str] = {
    "ircot": "trace/ircot.html.j2",
    "oner": "trace/baselines.html.j2",
    "nor": "trace/baselines.html.j2",
    "migres": "trace/migres.html.j2",
    "searchain": "trace/searchain.html.j2",
}

#: The template whose ``generic`` macro draws any step.
GENERIC = "trace/common.html.j2"


class StepRenderer:
    """Draws steps with the macros of each method's template (loaded once per template).

    Args:
        env: the report's Jinja environment.
    """

    def __init__(self, env: Environment) -> None:
        self.env = env
        self._modules: dict[str, Any] = {}

    def _module(self, name: str) -> Any:
        if name not in self._modules:
            self._modules[name] = self.env.get_template(name).module
        return self._modules[name]

    def macro(self, method: str, kind: str) -> Callable[[StepView, QuestionContext], Markup]:
        """The macro that draws a ``kind`` step of ``method``.

        Args:
            method: the run's method (any case).
            kind: the step's kind.

        Returns:
            The method's macro for the kind, else the generic one.
        """
        template = RENDERERS.get(method.lower())
        if template is not None:
            found = getattr(self._module(template), kind, None)
            if callable(found):
                return found  # type: ignore[no-any-return]
        generic: Callable[[StepView, QuestionContext], Markup] = self._module(GENERIC).generic
        return generic

    def __call__(self, method: str, step: StepView, ctx: QuestionContext) -> Markup:
        """Draw one step.

        Args:
            method: the run's method.
            step: the step.
            ctx: its question.

        Returns:
            The step's body (its header is drawn by the timeline).
        """
        return Markup(self.macro(method, step.kind)(step, ctx))
