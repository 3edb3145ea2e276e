"""Corpus files in the published formats, written by the tests: wiki-18's JSONL (FlashRAG / Search-R1),
DPR's psgs_w100.tsv and hopkit's {title, text} JSONL."""

from __future__ import annotations

import bz2
import gzip
import json
from pathlib import Path


def wiki18_line(source_id: int) -> str:
    """One line as wiki-18.jsonl writes it: a string id, the title line in double quotes (every third
    one bare, as some FlashRAG corpora write it), a newline, then the text."""
    title = f"Town {source_id}" if source_id % 3 == 0 else f'"Town {source_id}"'
    text = f"Town {source_id} lies on river number {source_id}, \"Ahärôn\" said."
    return json.dumps({"id": str(source_id), "contents": f"{title}\n{text}"}) + "\n"


def wiki18_file(path: Path, count: int, first_id: int = 7) -> Path:
    """``count`` passages with ids from ``first_id`` (not 0), gzipped when the name ends in .gz."""
    body = "".join(wiki18_line(first_id + i) for i in range(count)).encode("utf-8")
    path.write_bytes(gzip.compress(body, compresslevel=1) if path.suffix == ".gz" else body)
    return path


def expected_wiki18(count: int, first_id: int = 7) -> list[tuple[str, str, str]]:
    """(source id, title, text) of :func:`wiki18_file`'s passages, in order."""
    return [(str(i), f"Town {i}", f"Town {i} lies on river number {i}, \"Ahärôn\" said.")
            for i in range(first_id, first_id + count)]


def dpr_file(path: Path) -> Path:
    """psgs_w100.tsv's layout: the header, then id, text (quoted where it holds quotes, as csv writes it),
    title; bz2 when the name ends in .bz2."""
    rows = ['id\ttext\ttitle',
            '1\t"Aaron Aaron ( or ; ""Ahärôn"") is a prophet"\tAaron',
            '2\tSo the Lord said to Moses\tAaron',
            '3\t"A text with a\ttab"\t"Title, quoted"']
    body = ("\n".join(rows) + "\n").encode("utf-8")
    path.write_bytes(bz2.compress(body) if path.suffix == ".bz2" else body)
    return path


DPR_EXPECTED = [("1", "Aaron", 'Aaron Aaron ( or ; "Ahärôn") is a prophet'),
                ("2", "Aaron", "So the Lord said to Moses"),
                ("3", "Title, quoted", "A text with a\ttab")]


def hopkit_file(path: Path) -> Path:
    """hopkit's corpus JSONL: title and text, an id on some lines, a blank line."""
    lines = [json.dumps({"title": "Velmora", "text": "Velmora is a town."}), "",
             json.dumps({"id": "w9", "title": "Karst", "text": "Karst is a river."}),
             json.dumps({"title": "Osk", "text": "Osk is a lake.", "url": "https://example.org"})]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


HOPKIT_EXPECTED = [("0", "Velmora", "Velmora is a town."), ("w9", "Karst", "Karst is a river."),
                   ("2", "Osk", "Osk is a lake.")]
