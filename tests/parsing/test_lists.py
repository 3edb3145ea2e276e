"""parse_list: query lists as JSON, Python, numbered or bulleted lines, or plain text."""

import pytest

from hopkit.parsing import ParseError, parse_list

pytestmark = pytest.mark.unit

QUERIES = ["Who founded Velmora Ironworks?", "Where was Ada Quill born?"]


@pytest.mark.parametrize("text", [
    '["Who founded Velmora Ironworks?", "Where was Ada Quill born?"]',
    "['Who founded Velmora Ironworks?', 'Where was Ada Quill born?']",
    'Queries: ["Who founded Velmora Ironworks?", "Where was Ada Quill born?"] These are simple.',
    '["Who founded Velmora Ironworks?", "Where was Ada Quill born?"',
    '["Who founded Velmora Ironworks?"\n "Where was Ada Quill born?"]',
    '{"queries": ["Who founded Velmora Ironworks?", "Where was Ada Quill born?"]}',
    '[{"query": "Who founded Velmora Ironworks?"}, {"query": "Where was Ada Quill born?"}]',
    "1. Who founded Velmora Ironworks?\n2. Where was Ada Quill born?",
    "Here are the queries:\n1) Who founded Velmora Ironworks?\n2) \"Where was Ada Quill born?\"\nDone.",
    "- Who founded Velmora Ironworks?\n* Where was Ada Quill born?",
    "Query 1: Who founded Velmora Ironworks?\nQuery 2: Where was Ada Quill born?",
    "Based on passage [1]:\n1. Who founded Velmora Ironworks?\n2. Where was Ada Quill born?",
])
def test_list_shapes(text: str) -> None:
    assert parse_list(text) == QUERIES


def test_bare_words_in_brackets() -> None:
    assert parse_list("[Who founded Velmora Ironworks?, Where was Ada Quill born?]") == QUERIES


def test_empty_list() -> None:
    assert parse_list("[]") == []
    assert parse_list('["", "  "]') == []


def test_split_on_lines_or_commas_only_when_asked() -> None:
    text = "Who founded Velmora Ironworks?\nWhere was Ada Quill born?\n"
    with pytest.raises(ParseError, match="expected a list") as caught:
        parse_list(text)
    assert caught.value.raw == text
    assert parse_list(text, split_on="lines") == QUERIES
    assert parse_list('"Brownist", Puritans', split_on="commas") == ["Brownist", "Puritans"]


def test_nothing_to_read() -> None:
    with pytest.raises(ParseError, match="no bracketed list"):
        parse_list("", split_on="commas")
