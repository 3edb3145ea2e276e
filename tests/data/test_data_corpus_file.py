"""Corpus files (a Wikipedia dump as JSONL) read as a stream, with errors naming file, line and field."""

from __future__ import annotations

import bz2
import gzip
import json
from pathlib import Path

import pytest

from hopkit.data.corpus_file import corpus_files, read_corpus
from hopkit.errors import DataError
from hopkit.records import ContextParagraph

pytestmark = pytest.mark.unit

LINES = [
    {"id": "a1", "title": "Alpha", "text": "Alpha is a letter."},
    {"title": "Beta", "paragraph_text": "Beta follows alpha.", "url": "https://example.org/beta"},
    {"title": "Gamma", "contents": "Gamma comes third."},
    {"title": "Delta", "text": ["Delta is fourth.", " It is a river mouth too."]},
]


def write(path: Path, rows: list[object]) -> Path:
    body = "".join(json.dumps(row) + "\n" for row in rows)
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(body.encode()))
    elif path.suffix == ".bz2":
        path.write_bytes(bz2.compress(body.encode()))
    else:
        path.write_text(body + "\n", encoding="utf-8")  # a blank last line is skipped
    return path


@pytest.mark.parametrize("name", ["wiki.jsonl", "wiki.jsonl.gz", "wiki.jsonl.bz2"])
def test_each_text_field_and_compression(tmp_path: Path, name: str) -> None:
    paragraphs = list(read_corpus([write(tmp_path / name, LINES)]))
    assert paragraphs == [ContextParagraph("Alpha", "Alpha is a letter."),
                          ContextParagraph("Beta", "Beta follows alpha."),
                          ContextParagraph("Gamma", "Gamma comes third."),
                          ContextParagraph("Delta", "Delta is fourth. It is a river mouth too.")]


def test_a_folder_is_read_file_by_file_in_name_order(tmp_path: Path) -> None:
    write(tmp_path / "b.jsonl.bz2", LINES[2:])
    write(tmp_path / "a.jsonl", LINES[:2])
    (tmp_path / "notes.txt").write_text("not a corpus file")
    assert corpus_files([tmp_path]) == [tmp_path / "a.jsonl", tmp_path / "b.jsonl.bz2"]
    assert [p.title for p in read_corpus([tmp_path])] == ["Alpha", "Beta", "Gamma", "Delta"]


@pytest.mark.parametrize(("row", "field", "message"), [
    ({"text": "no title"}, "title", "missing required field"),
    ({"title": "  ", "text": "x"}, "title", "must not be empty"),
    ({"title": None, "text": "x"}, "title", "expected a string, got null"),
    ({"title": "T"}, None, "no paragraph text"),
    ({"title": "T", "text": {"a": 1}}, "text", "expected a string or a list of sentence strings"),
    ({"title": "T", "paragraph_text": ["ok", 3]}, "paragraph_text", "expected a string or a list"),
    (["not", "an", "object"], None, "expected a JSON object"),
])
def test_bad_line_names_file_line_and_field(tmp_path: Path, row: object, field: str | None, message: str) -> None:
    path = write(tmp_path / "wiki.jsonl", [LINES[0], row])
    with pytest.raises(DataError) as caught:
        list(read_corpus([path]))
    text = str(caught.value)
    assert str(path) in text and ":2" in text and message in text
    if field is not None:
        assert repr(field) in text


def test_truncated_compressed_file(tmp_path: Path) -> None:
    path = write(tmp_path / "wiki.jsonl.gz", LINES * 50)
    path.write_bytes(path.read_bytes()[:-30])
    with pytest.raises(DataError, match="cannot read the file past line"):
        list(read_corpus([path]))


def test_missing_path_and_empty_folder(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no such corpus file or folder"):
        corpus_files([tmp_path / "absent.jsonl"])
    with pytest.raises(DataError, match="no corpus file"):
        corpus_files([tmp_path])
