"""A search agent's template is data: the shipped families load, and a broken template file is refused
with its path and field named."""

from __future__ import annotations

from pathlib import Path

import pytest

from hopkit.errors import ConfigError
from hopkit.methods.search_agent.templates import TEMPLATES, load_template, template_names

pytestmark = pytest.mark.unit


def test_the_shipped_families_load_with_their_published_settings() -> None:
    assert template_names() == ["autorefine", "r1-searcher", "search-r1"]
    search_r1, r1_searcher = load_template("search-r1"), load_template("r1-searcher")
    assert (search_r1.query, search_r1.top_k, search_r1.max_turns, search_r1.chat) == (("<search>", "</search>"), 3, 4,
                                                                                       True)
    assert (r1_searcher.query, r1_searcher.top_k, r1_searcher.chat) == (
        ("<|begin_of_query|>", "<|end_of_query|>"), 5, False)


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "mine.yaml"
    path.write_text(text)
    return str(path)


def shipped_with(tmp_path: Path, old: str, new: str) -> str:
    text = (TEMPLATES / "search-r1.yaml").read_text()
    assert old in text
    return write(tmp_path, text.replace(old, new))


def test_a_users_own_template_file_loads() -> None:
    assert load_template(str(TEMPLATES / "autorefine.yaml")).name == "autorefine"


@pytest.mark.parametrize("old, new, message", [
    ("top_k: 3", "top_k: 0", "'top_k'.*at least 1"),
    ("top_k: 3", "top_k: 3\ncolour: red", "unknown template field.*colour"),
    ("top_k: 3\n", "", "missing: top_k"),
    ('query: ["<search>", "</search>"]', 'query: ["<search>"]', "'query'.*two different non-empty tags"),
    ('query: ["<search>", "</search>"]', 'query: ["<answer>", "</search>"]', "open with the same tag"),
    ("chat: true", "chat: yes please", "'chat'.*true or false"),
    ("Question: {question}", "Question:", "'instruction' must hold {question}"),
])
def test_a_broken_template_is_refused_naming_its_file_and_field(tmp_path: Path, old: str, new: str,
                                                                 message: str) -> None:
    path = shipped_with(tmp_path, old, new)
    with pytest.raises(ConfigError, match=message) as refused:
        load_template(path)
    assert path in str(refused.value)


def test_an_unknown_family_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="search-o2.*autorefine, r1-searcher, search-r1"):
        load_template("search-o2")
