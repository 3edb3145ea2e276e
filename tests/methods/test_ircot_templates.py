"""The zero-shot template checks and rendering."""

from __future__ import annotations

import pytest

from hopkit.errors import ConfigError
from hopkit.prompts.ircot_templates import (DEFAULT_COT_QA_TEMPLATE, DEFAULT_QA_TEMPLATE,
                                            DEFAULT_REASONING_TEMPLATE, QA_VARIABLES, REASONING_VARIABLES,
                                            check_template, numbered_paragraphs, render_template,
                                            template_variables)
from hopkit.records import Paragraph

pytestmark = pytest.mark.unit


def test_defaults_pass_their_own_checks() -> None:
    check_template(DEFAULT_REASONING_TEMPLATE, "reasoning_prompt_template", REASONING_VARIABLES)
    check_template(DEFAULT_QA_TEMPLATE, "qa_prompt_template", QA_VARIABLES)
    check_template(DEFAULT_COT_QA_TEMPLATE, "qa_prompt_template", QA_VARIABLES)
    assert template_variables(DEFAULT_REASONING_TEMPLATE, "x") == {"query", "paragraphs", "cot_history"}


@pytest.mark.parametrize("template, message", [
    ("{query} {}", "positional"), ("{query} {", "cannot parse"), ("{query} {docs}", "{docs}"),
    ("{paragraphs}", "{query}"),
])
def test_bad_templates_name_the_option(template: str, message: str) -> None:
    with pytest.raises(ConfigError, match="my_option") as error:
        check_template(template, "my_option", REASONING_VARIABLES)
    assert message in str(error.value)


def test_escaped_braces_are_literal() -> None:
    check_template("{{json}} {query}", "x", QA_VARIABLES)
    assert render_template("{{json}} {query}", query="Q", paragraphs=[], word_limit=5) == "{json} Q"


def test_paragraphs_are_numbered_and_clipped() -> None:
    paragraphs = [Paragraph(1, "A", "one two three four"), Paragraph(2, "B", "five")]
    assert numbered_paragraphs(paragraphs, word_limit=2) == "[1] Wikipedia Title: A\none two\n\n[2] Wikipedia Title: B\nfive"


def test_cot_history_is_joined_with_spaces() -> None:
    out = render_template("{query}|{cot_history}", query="Q", paragraphs=[], word_limit=5, cot_history=["A.", "B."])
    assert out == "Q|A. B."
