"""IRCoT's zero-shot prompt templates (the documentation page's defaults) and their checks.

Reasoning template variables: ``{query}`` (the question), ``{paragraphs}`` (the
collected paragraphs, numbered), ``{cot_history}`` (the chain-of-thought sentences
so far). QA template variables: ``{query}`` and ``{paragraphs}``. ``{query}`` is
required; write a literal brace as ``{{`` or ``}}``.
"""

from __future__ import annotations

import string
from typing import Sequence

from hopkit.errors import ConfigError
from hopkit.prompts.layout import clip_words
from hopkit.records import Paragraph

REASONING_VARIABLES = frozenset({"query", "paragraphs", "cot_history"})
QA_VARIABLES = frozenset({"query", "paragraphs"})

DEFAULT_REASONING_TEMPLATE = (
    "Question: {query}\n"
    "Context:\n"
    "{paragraphs}\n"
    "Previous reasoning:\n"
    "{cot_history}\n"
    'Think step-by-step. Write "The answer is: X" when ready.\n'
)
DEFAULT_QA_TEMPLATE = (
    "Question: {query}\n"
    "Documents:\n"
    "{paragraphs}\n"
    "Answer concisely:\n"
)
# The documentation page's QA default asks for a short answer; a chain-of-thought
# reader needs the answer sentence the extraction looks for.
DEFAULT_COT_QA_TEMPLATE = (
    "Question: {query}\n"
    "Documents:\n"
    "{paragraphs}\n"
    'Think step-by-step, then end with "So the answer is: X."\n'
)


def template_variables(template: str, option: str) -> set[str]:
    """The ``{name}`` fields of ``template``.

    Raises:
        ConfigError: naming ``option`` if the template cannot be parsed or uses a
            positional field ``{}``.
    """
    try:
        fields = [name for _, name, _, _ in string.Formatter().parse(template) if name is not None]
    except ValueError as error:
        raise ConfigError(f"option {option!r}: cannot parse the template ({error}); "
                          f"write literal braces as '{{{{' and '}}}}'") from error
    names = set()
    for name in fields:
        base = name.split(".", 1)[0].split("[", 1)[0]
        if not base:
            raise ConfigError(f"option {option!r}: positional field '{{}}' is not allowed; "
                              f"use named variables")
        names.add(base)
    return names


def check_template(template: str, option: str, allowed: frozenset[str]) -> None:
    """Check that ``template`` uses only ``allowed`` variables and has ``{query}``.

    Raises:
        ConfigError: naming ``option`` and the offending variable.
    """
    names = template_variables(template, option)
    unknown = sorted(names - allowed)
    if unknown:
        raise ConfigError(f"option {option!r}: unknown template variable(s) "
                          f"{', '.join('{' + n + '}' for n in unknown)}; allowed: "
                          f"{', '.join('{' + n + '}' for n in sorted(allowed))}")
    if "query" not in names:
        raise ConfigError(f"option {option!r}: the template must contain {{query}}")


def numbered_paragraphs(paragraphs: Sequence[Paragraph], word_limit: int) -> str:
    """``[1] Wikipedia Title: <title>\\n<text>`` blocks joined by blank lines."""
    return "\n\n".join(f"[{i}] Wikipedia Title: {p.title}\n{clip_words(p.text, word_limit)}"
                       for i, p in enumerate(paragraphs, start=1))


def render_template(template: str, *, query: str, paragraphs: Sequence[Paragraph], word_limit: int,
                    cot_history: Sequence[str] = ()) -> str:
    """Fill ``template`` (already checked) with the question, paragraphs and CoT so far."""
    return template.format(query=query, paragraphs=numbered_paragraphs(paragraphs, word_limit),
                           cot_history=" ".join(s.strip() for s in cot_history))
