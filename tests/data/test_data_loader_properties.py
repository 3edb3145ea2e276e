"""Property tests of the dataset loaders: any content gives examples or one DataError.

Whatever a dataset file holds (arbitrary JSON, a valid file with fields
deleted or retyped, a valid file with its text cut or spliced, random bytes),
``load_dataset`` must return examples or raise a :class:`DataError` naming the
file, and, when the damage is inside a record, its line or record; never
another exception type.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hopkit.data.registry import load_dataset
from hopkit.errors import DataError
from hopkit.records import ContextParagraph, Example

pytestmark = pytest.mark.unit

FIXTURES = Path(__file__).parent / "fixtures"
SETTINGS = settings(max_examples=int(os.environ.get("HOPKIT_PROPERTY_EXAMPLES", "120")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@dataclass(frozen=True)
class DataFile:
    """One file of a dataset: its name, whether it is JSONL, and its decoded content."""

    name: str
    jsonl: bool
    content: Any  # the top-level value, or the list of line values for JSONL

    def text(self, content: Any = None) -> str:
        value = self.content if content is None else content
        if self.jsonl:
            return "".join(json.dumps(line) + "\n" for line in value)
        return json.dumps(value)


def _read(path: Path, jsonl: bool) -> DataFile:
    text = path.read_text(encoding="utf-8")
    content = [json.loads(line) for line in text.splitlines() if line.strip()] if jsonl else json.loads(text)
    return DataFile(path.name, jsonl, content)


# Each official format: its files (the first is the one load_dataset is given), from the fixtures.
FORMATS: dict[str, tuple[DataFile, ...]] = {
    "hotpotqa": (_read(FIXTURES / "hotpot_small.json", False),),
    "2wikimultihopqa": (_read(FIXTURES / "two_wiki" / "dev.json", False),
                        _read(FIXTURES / "two_wiki" / "id_aliases.json", True)),
    "musique": (_read(FIXTURES / "musique_small.jsonl", True),),
    "iirc": (_read(FIXTURES / "iirc" / "dev.json", False),
             _read(FIXTURES / "iirc" / "context_articles.json", False)),
    "strategyqa": (_read(FIXTURES / "strategyqa" / "strategyqa_small.json", False),
                   _read(FIXTURES / "strategyqa" / "strategyqa_paragraphs_small.jsonl", True)),
    "ircot": (_read(FIXTURES / "ircot_small.jsonl", True),),
    "jsonl": (_read(FIXTURES / "jsonl_small.jsonl", True),),
}
NAMES = sorted(FORMATS)

# Field names of every format, so that arbitrary objects often look like real records.
FIELD_NAMES = sorted({
    "_id", "id", "qid", "pid", "Q_id", "question", "question_id", "question_text", "answer", "answers",
    "answer_aliases", "answerable", "answer_id", "answer_type", "answers_objects", "number", "date",
    "day", "month", "year", "spans", "supporting_facts", "context", "contexts", "pinned_contexts",
    "paragraphs", "paragraph_text", "is_supporting", "idx", "title", "text", "main_passage",
    "aliases", "demonyms", "links", "target", "questions", "type", "answer_spans", "answer_value",
    "answer_unit", "passage", "evidence", "contents", "content", "para_index", "facts",
})

# Markup made of the tokens HTML parsers trip over, for IIRC's article pages.
MARKUP = st.lists(st.sampled_from(["<", ">", "</", "<!", "<![", "]]>", "<!--", "-->", "<?", "&", "&#", "&#x",
                                   ";", "[", "]", "a", "p", " ", "\n", "=", '"', "'"]),
                  max_size=10).map("".join)
SCALARS = (st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
           | st.floats() | st.text(max_size=12) | st.sampled_from(["", " ", "yes", "main", "span",
                                                                  "binary", "value", "none"])
           | MARKUP)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda children: (st.lists(children, max_size=4)
                      | st.dictionaries(st.sampled_from(FIELD_NAMES) | st.text(max_size=6), children,
                                        max_size=5)),
    max_leaves=16,
)


def mutated(data: st.DataObject, value: Any, depth: int = 0) -> Any:
    """``value`` with one part (never the top-level container itself) deleted, replaced, or,
    for a string, with text spliced in."""
    container = isinstance(value, (dict, list)) and bool(value)
    if container and (depth == 0 or data.draw(st.booleans(), label=f"descend at depth {depth}")):
        keys = sorted(value) if isinstance(value, dict) else list(range(len(value)))
        key = data.draw(st.sampled_from(keys), label="key")
        copy = dict(value) if isinstance(value, dict) else list(value)
        if depth > 0 and data.draw(st.booleans(), label="delete"):
            del copy[key]
        else:
            copy[key] = mutated(data, value[key], depth + 1)
        return copy
    if isinstance(value, str) and data.draw(st.booleans(), label="splice into the string"):
        at = data.draw(st.integers(0, len(value)), label="at")
        return value[:at] + data.draw(MARKUP | st.text(max_size=6), label="inserted") + value[at:]
    return data.draw(JSON_VALUES, label="replacement")


def load(name: str, texts: dict[str, str | bytes]) -> tuple[list[Example] | DataError, set[str]]:
    """Write the files into a fresh folder and load the first; return examples or the DataError."""
    with tempfile.TemporaryDirectory() as folder:
        paths = {}
        for file_name, text in texts.items():
            path = Path(folder) / file_name
            if isinstance(text, bytes):
                path.write_bytes(text)
            else:
                path.write_text(text, encoding="utf-8")
            paths[file_name] = str(path)
        try:
            return load_dataset(name, paths[FORMATS[name][0].name]), set(paths.values())
        except DataError as exc:
            return exc, set(paths.values())


def check(outcome: list[Example] | DataError, paths: set[str], *, inside_records: bool) -> None:
    if isinstance(outcome, DataError):
        assert outcome.path in paths, f"the error names no file of the dataset: {outcome}"
        assert str(outcome).startswith(outcome.path)
        if inside_records:
            assert outcome.line is not None or outcome.record is not None, \
                f"the error names neither a line nor a record: {outcome}"
        return
    for item in outcome:
        assert isinstance(item, Example) and isinstance(item.id, str) and item.id
        assert all(isinstance(a, str) for a in item.answers)
        assert all(isinstance(p, ContextParagraph) and isinstance(p.text, str) and isinstance(p.title, str)
                   for p in item.context)


def seed_texts(name: str) -> dict[str, str | bytes]:
    return {f.name: f.text() for f in FORMATS[name]}


@pytest.mark.parametrize("name", NAMES)
def test_the_fixtures_load(name: str) -> None:
    outcome, _ = load(name, seed_texts(name))
    assert isinstance(outcome, list) and outcome


@pytest.mark.parametrize("name", NAMES)
@SETTINGS
@given(data=st.data())
def test_records_with_fields_deleted_or_retyped(name: str, data: st.DataObject) -> None:
    files = FORMATS[name]
    texts = seed_texts(name)
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        target = data.draw(st.sampled_from(files), label="file")
        if target.content:
            texts[target.name] = target.text(mutated(data, target.content))
    outcome, paths = load(name, texts)
    check(outcome, paths, inside_records=True)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("text", ['{"id": ' + "7" * 5000 + "}", "[" * 100_000 + "]" * 100_000],
                         ids=["number-too-long", "nesting-too-deep"])
def test_numbers_too_long_and_nesting_too_deep(name: str, text: str) -> None:
    """Python's json raises ValueError and RecursionError for these, not JSONDecodeError."""
    for target in FORMATS[name]:
        outcome, paths = load(name, {**seed_texts(name), target.name: text})
        assert isinstance(outcome, DataError)
        check(outcome, paths, inside_records=False)


@pytest.mark.parametrize("name", NAMES)
@SETTINGS
@given(data=st.data())
def test_text_cut_or_spliced(name: str, data: st.DataObject) -> None:
    files = FORMATS[name]
    texts = seed_texts(name)
    target = data.draw(st.sampled_from(files), label="file")
    text = target.text()
    for _ in range(data.draw(st.integers(1, 3), label="edits")):
        start = data.draw(st.integers(0, len(text)), label="start")
        stop = data.draw(st.integers(start, min(len(text), start + 40)), label="stop")
        insert = data.draw(st.text(max_size=8) | st.sampled_from(['"', "\n", "{", "]", ",", "\\u00", "\\ud800"]),
                           label="insert")
        text = text[:start] + insert + text[stop:]
    texts[target.name] = text
    outcome, paths = load(name, texts)
    check(outcome, paths, inside_records=False)


@pytest.mark.parametrize("name", NAMES)
@SETTINGS
@given(content=JSON_VALUES, lines=st.lists(JSON_VALUES | st.text(max_size=20), max_size=4),
       raw=st.binary(max_size=64), choice=st.sampled_from(["json", "jsonl", "bytes"]))
def test_arbitrary_content(name: str, content: Any, lines: list[Any], raw: bytes, choice: str) -> None:
    main = FORMATS[name][0].name
    if choice == "json":
        text: str | bytes = json.dumps(content)
    elif choice == "jsonl":
        text = "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines)
    else:
        text = raw
    outcome, paths = load(name, {**seed_texts(name), main: text})
    check(outcome, paths, inside_records=False)
