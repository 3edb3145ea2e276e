"""Property tests of the parsers: rendered values come back, arbitrary text only raises ParseError."""

import json
import re
import time
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from hopkit.parsing import Chain, ParseError, parse_chain, parse_dict, parse_list
from hopkit.parsing.dicts import normalize_key

pytestmark = pytest.mark.unit

KEYS = st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True)
BLANK_FREE = st.text(min_size=1).filter(lambda s: s.strip() != "")
VALUES = st.one_of(st.text(), st.integers(-10**12, 10**12), st.lists(BLANK_FREE, max_size=4))
PROSE = st.text(alphabet="abcdefghij XYZ.!?0123456789", max_size=40)
SAFE_WORDS = st.text(alphabet="abcdefghij XYZ", min_size=1, max_size=20).map(str.strip).filter(bool)
SEPARATORS = st.sampled_from([" ", "\n", "\n\n"])
DICTS = st.dictionaries(KEYS, VALUES, min_size=1, max_size=6).filter(
    lambda d: len({normalize_key(k) for k in d}) == len(d))
RENDERINGS: dict[str, Callable[[dict[str, Any]], str]] = {
    "json": json.dumps,
    "json-unicode": lambda d: json.dumps(d, ensure_ascii=False),
    "python": repr,
    "json-no-braces": lambda d: json.dumps(d)[1:-1],
    "python-no-braces": lambda d: repr(d)[1:-1],
    "json-no-opening-brace": lambda d: json.dumps(d, indent=1)[1:],
    "python-no-closing-brace": lambda d: repr(d)[:-1],
}
CHAIN_TEXT = st.text(alphabet="abcdefghijklmnop XYZ0123456789?.,'-:()", min_size=1, max_size=30).map(
    str.strip).filter(bool)
NODES = st.lists(st.tuples(CHAIN_TEXT, st.one_of(st.none(), CHAIN_TEXT), st.booleans()), max_size=5)
FIELDS = {"answer": "str", "confidence": "int", "sure": "bool", "ids": "list[int]", "queries": "list[str]"}
STRUCTURAL = st.text(alphabet="{}[]\"':,\n\\ aQy1Answer_.", max_size=200)


def kinds(values: dict[str, Any]) -> dict[str, Any]:
    return {key: "int" if isinstance(v, int) else "list[str]" if isinstance(v, list) else "str"
            for key, v in values.items()}


@settings(max_examples=200)
@given(DICTS, st.sampled_from(sorted(RENDERINGS)))
def test_rendered_dicts_parse_back(values: dict[str, Any], rendering: str) -> None:
    assert parse_dict(RENDERINGS[rendering](values), kinds(values)) == values


@settings(max_examples=100)
@given(DICTS, st.sampled_from(["json", "python"]), PROSE, PROSE, SEPARATORS)
def test_prose_around_a_dict_is_ignored(values: dict[str, Any], rendering: str, before: str, after: str,
                                        separator: str) -> None:
    text = before + separator + RENDERINGS[rendering](values) + separator + after
    assert parse_dict(text, kinds(values)) == values


@settings(max_examples=100)
@given(st.dictionaries(KEYS, st.one_of(SAFE_WORDS, st.integers(-999, 999)), min_size=1, max_size=5).filter(
    lambda d: len({normalize_key(k) for k in d}) == len(d)), PROSE, PROSE, SEPARATORS)
def test_prose_around_a_dict_without_braces(values: dict[str, Any], before: str, after: str,
                                            separator: str) -> None:
    text = before + "\n" + json.dumps(values)[1:-1] + separator + after
    assert parse_dict(text, kinds(values)) == values


def parse_every_way(text: str) -> None:
    for parse in (lambda t: parse_dict(t, FIELDS, optional=["sure", "ids", "queries"]), parse_list,
                  lambda t: parse_list(t, split_on="commas"), parse_chain):
        try:
            parse(text)
        except ParseError as error:
            assert error.raw == text


@given(st.one_of(st.text(), STRUCTURAL))
def test_arbitrary_text_raises_only_parse_error(text: str) -> None:
    parse_every_way(text)


@given(STRUCTURAL)
def test_parsed_values_have_their_kinds(text: str) -> None:
    try:
        parsed = parse_dict(text, FIELDS, optional=list(FIELDS))
    except ParseError:
        return
    checks = {"answer": str, "confidence": int, "sure": bool, "ids": list, "queries": list}
    assert all(value is None or type(value) is checks[key] for key, value in parsed.items())
    assert all(type(i) is int for i in parsed["ids"] or [])
    assert all(type(q) is str and q.strip() for q in parsed["queries"] or [])


@pytest.mark.parametrize("text", ["{" * 20000, "[" * 20000, '{"a": "' * 5000, "'" * 20000, "{a: [" * 5000,
                                  "[Query 1]: x\n[Answer 1]: y\n" * 2000, "a, " * 10000, "9" * 20000,
                                  '{"confidence": ' + "9" * 5000 + "}", "\\" * 20000, "[Querry" * 5000])
def test_adversarial_text_is_read_quickly(text: str) -> None:
    # a guard against catastrophic backtracking (seconds of CPU on 20,000 characters), counted in
    # this process's CPU time so that a busy machine does not make it fail
    started = time.process_time()
    parse_every_way(text)
    assert time.process_time() - started < 5


@given(st.lists(BLANK_FREE, max_size=6))
def test_json_lists_parse_back(items: list[str]) -> None:
    assert parse_list(json.dumps(items)) == items
    assert parse_list(repr(items)) == items


@given(st.lists(SAFE_WORDS, min_size=1, max_size=6), st.sampled_from(["{n}. ", "{n}) ", "- ", "* "]))
def test_marked_lines_parse_back(items: list[str], marker: str) -> None:
    text = "\n".join(marker.format(n=n) + item for n, item in enumerate(items, start=1))
    assert parse_list(text) == items


def render_chain(nodes: list[tuple[str, str | None, bool]], final: str) -> str:
    lines = []
    for number, (query, answer, unsolved) in enumerate(nodes, start=1):
        if unsolved:
            lines.append(f"[Unsolved Query]: {query}")
            continue
        lines.append(f"[Query {number}]: {query}")
        if answer is not None:
            lines.append(f"[Answer {number}]: {answer}")
    return "\n".join([*lines, f"[Final Content]: {final}"])


def expected_nodes(nodes: list[tuple[str, str | None, bool]]) -> list[tuple[str, str | None, bool]]:
    return [(query, None if unsolved else answer, unsolved) for query, answer, unsolved in nodes]


def no_repeated_unsolved(nodes: list[tuple[str, str | None, bool]]) -> bool:
    return all(not (a[2] and b[2] and a[0] == b[0]) for a, b in zip(nodes, nodes[1:]))


@given(NODES, CHAIN_TEXT)
def test_rendered_chains_parse_back(nodes: list[tuple[str, str | None, bool]], final: str) -> None:
    assume(no_repeated_unsolved(nodes))
    chain = parse_chain(render_chain(nodes, final))
    assert [(n.query, n.answer, n.unsolved) for n in chain.nodes] == expected_nodes(nodes)
    assert [n.index for n in chain.nodes] == list(range(1, len(nodes) + 1))
    assert all(n.complete for n in chain.nodes)
    assert chain.final_content == final


@settings(max_examples=50, suppress_health_check=[HealthCheck.too_slow])
@given(NODES, CHAIN_TEXT)
def test_a_chain_cut_anywhere_gives_a_prefix_of_its_nodes(nodes: list[tuple[str, str | None, bool]],
                                                         final: str) -> None:
    assume(no_repeated_unsolved(nodes))
    text = render_chain(nodes, final)
    whole = expected_nodes(nodes)
    for cut in range(len(text) + 1):
        try:
            chain = parse_chain(text[:cut])
        except ParseError:
            assert re.search(r"\]: \S", text[:cut]) is None
            continue
        assert_prefix(chain, whole, final)


def assert_prefix(chain: Chain, whole: list[tuple[str, str | None, bool]], final: str) -> None:
    assert len(chain.nodes) <= len(whole)
    for node, (query, answer, unsolved) in zip(chain.nodes, whole):
        assert node.unsolved == unsolved
        if node.complete:
            assert (node.query, node.answer) == (query, answer)
        else:
            assert node is chain.nodes[-1] and chain.final_content is None
            assert query.startswith(node.query)
            assert node.answer is None or (answer is not None and answer.startswith(node.answer))
    if chain.final_content is not None:
        assert final.startswith(chain.final_content)
        assert len(chain.nodes) == len(whole)
