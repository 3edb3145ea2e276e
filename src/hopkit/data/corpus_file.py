"""Read a retrieval corpus from JSONL files as a stream, for a corpus too large to hold.

One JSON object per line, plain or compressed (``.jsonl``, ``.jsonl.gz``,
``.jsonl.bz2``)::

    {"title": str, "text": str}

``text`` may also be called ``paragraph_text`` (the IRCoT authors' files) or
``contents`` (Pyserini's), and may be a list of sentences (the HotpotQA abstracts
dump), joined as the HotpotQA loader joins them. Other fields (an ``id``, a
``url``) are ignored: the store numbers the paragraphs itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from hopkit.data.formats._common import (Where, as_object, get_str, iter_jsonl, join_sentences, not_a_regular_file,
                                         type_name)
from hopkit.errors import DataError
from hopkit.records import ContextParagraph

TEXT_FIELDS = ("text", "paragraph_text", "contents")
SUFFIXES = (".jsonl", ".jsonl.gz", ".jsonl.bz2", ".json.bz2", ".bz2", ".gz")


def corpus_files(paths: Iterable[str | Path]) -> list[Path]:
    """The files behind ``paths``: each file as given, each folder's corpus files in name order.

    Raises:
        DataError: a path that does not exist, or a folder with no corpus file.
    """
    files: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            found = sorted(f for f in path.rglob("*") if f.is_file() and f.name.endswith(SUFFIXES))
            if not found:
                raise DataError(f"no corpus file ({', '.join(SUFFIXES)}) in this folder", path=str(path))
            files.extend(found)
        elif (kind := not_a_regular_file(path)) is None:
            files.append(path)
        elif kind == "missing":
            raise DataError("no such corpus file or folder", path=str(path))
        else:
            raise DataError(f"not a regular file but {kind}; give a corpus file or a folder of them", path=str(path))
    return files


def read_corpus(paths: Iterable[str | Path]) -> Iterator[ContextParagraph]:
    """Stream the paragraphs of corpus files, one line at a time, in file and line order.

    Raises:
        DataError: naming the file, line and field of the first bad line.
    """
    for path in corpus_files(paths):
        for where, row in iter_jsonl(path):
            yield parse_corpus_line(row, where)


def parse_corpus_line(row: object, where: Where) -> ContextParagraph:
    """One corpus line as a paragraph (not a supporting one: no question points at it)."""
    obj = as_object(row, where)
    title = get_str(obj, "title", where)
    field = next((name for name in TEXT_FIELDS if name in obj), None)
    if field is None:
        raise where.error(f"no paragraph text: expected one of the fields {', '.join(TEXT_FIELDS)}")
    value = obj[field]
    if isinstance(value, list) and all(isinstance(sentence, str) for sentence in value):
        value = join_sentences(value)
    if not isinstance(value, str):
        raise where.error(f"expected a string or a list of sentence strings, got {type_name(value)}", field)
    return ContextParagraph(title=title, text=value, is_supporting=False)
