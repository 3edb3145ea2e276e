"""Which template draws the steps of which method: one renderer per method, a generic one for the rest.

A renderer is a Jinja template under ``templates/trace/`` that defines one macro per step kind
it draws (``retrieve``, ``reason``, ``read`` ...), each called as ``macro(step, ctx)`` with a
:class:`~hopkit.report.html.trace_view.StepView` (its ``payload`` the step's typed payload, which
the macro reads) and the question's
:class:`~hopkit.report.html.trace_view.QuestionContext`. A kind the method's template does not
define, and every step of a method without a renderer, is drawn by ``trace/common.html.j2``'s
``generic`` macro: input, output, paragraphs and extra as formatted JSON.

A method's template is a file of its package, named by its registry entry
(:class:`~hopkit.methods.registry.MethodEntry`'s ``template``); the report loads it as
``method/<name>`` (:func:`method_template`).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from jinja2 import Environment, FunctionLoader
from markupsafe import Markup

from hopkit.report.html.trace_view import QuestionContext, StepView

__all__ = ["GENERIC", "StepRenderer", "method_template", "method_templates", "renderers"]

_PREFIX = "method/"


def renderers() -> dict[str, str]:
    """Method name (lower case, as runs store it) to the template drawing its steps, for every
    registered method that has one."""
    from hopkit.methods.registry import entries

    return {name: _PREFIX + name for name, entry in entries().items() if entry.template is not None}


def method_template(name: str) -> str | None:
    """The source of the template ``method/<method name>`` (None for any other name)."""
    if not name.startswith(_PREFIX):
        return None
    from hopkit.methods.registry import entries

    entry = entries().get(name[len(_PREFIX):])
    if entry is None or entry.template is None:
        return None
    return entry.template.read_text(encoding="utf-8")


def method_templates() -> FunctionLoader:
    """The Jinja loader of the methods' own templates (``method/<name>``)."""
    return FunctionLoader(method_template)

def _declares_payloads(method: str) -> bool:
    from hopkit.methods.registry import entries

    entry = entries().get(method.lower())
    return entry is not None and bool(entry.payloads)


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

    def macro(self, method: str, kind: str, payload: Any = None) -> Callable[[StepView, QuestionContext], Markup]:
        """The macro that draws a ``kind`` step of ``method``.

        Args:
            method: the run's method (any case).
            kind: the step's kind.
            payload: the step's typed payload (None: it has none, or did not read as one).

        Returns:
            The method's macro for the kind, which reads the payload, else the generic one (also for a
            step without payload of a method that declares payloads).
        """
        template = renderers().get(method.lower())
        if template is not None and (payload is not None or not _declares_payloads(method)):
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
        recorder = step.extra.get("method") if isinstance(step.extra, Mapping) else None
        if isinstance(recorder, str) and recorder in renderers():  # a step of a method the run's method ran
            method = recorder
        return Markup(self.macro(method, step.kind, step.payload)(step, ctx))
