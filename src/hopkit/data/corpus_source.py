"""A retrieval corpus file of a published format, read as a stream of passages with their source ids.

What ``hopkit corpus add`` reads. Three formats, plain or compressed (``.gz``, ``.bz2``), told from the
content (:func:`detect_format`) or named:

``flashrag``
    FlashRAG's and Search-R1's JSONL (``wiki-18.jsonl``, ``wiki18_100w.jsonl``): ``{"id", "contents"}``
    where ``contents`` is the title line, a newline, then the text. The title is split off as FlashRAG's
    and Search-R1's retrievers split it (the first line); one pair of double quotes around it, as the
    wiki-18 dump writes titles (``"Aaron"``), is removed.
``dpr``
    DPR's ``psgs_w100.tsv``: a header ``id<TAB>text<TAB>title``, then one passage a row, read with
    Python's ``csv`` module and a tab delimiter, as DPR reads it (a quoted field may hold tabs, quotes
    and newlines).
``hopkit``
    hopkit's corpus JSONL (:mod:`hopkit.data.corpus_file`): ``{"title", "text"}``, an ``id`` kept when
    present, else the passage's position in the file.

Every passage keeps the source's id (a string, as the file spells it) and its position in the file, the
row a prebuilt index built over the file gives it.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import json
import tarfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, BinaryIO

from hopkit.data.formats._common import Where, as_object, get_str, not_a_regular_file, type_name
from hopkit.errors import DataError

FORMATS = ("flashrag", "dpr", "hopkit")
DPR_HEADER = ("id", "text", "title")
TAR_MARK, TAR_MARK_AT = b"ustar", 257  # a POSIX tar header's magic and where it is
# csv's default limit (128 KiB) is below what a long Wikipedia passage can hold
csv.field_size_limit(2**31 - 1)


@dataclass(frozen=True)
class SourcePassage:
    """One passage of a corpus file: its id in the file (as written there), title and text."""

    source_id: str
    title: str
    text: str


def flashrag_title_text(contents: str) -> tuple[str, str]:
    """FlashRAG's ``contents`` split as its retrievers split it: the first line is the title (one pair
    of surrounding double quotes removed), the rest the text."""
    title, _, text = contents.partition("\n")
    title = title.strip()
    if len(title) >= 2 and title[0] == '"' and title[-1] == '"':
        title = title[1:-1]
    return title, text


class CorpusSource:
    """A corpus file and its format. Build it with :meth:`open`.

    Args:
        path: the file.
        format: one of :data:`FORMATS`.
    """

    def __init__(self, path: Path, format: str) -> None:
        if format not in FORMATS:
            raise ValueError(f"unknown corpus format {format!r}; known: {', '.join(FORMATS)}")
        self.path = path
        self.format = format
        self._raw: BinaryIO | None = None

    @classmethod
    def open(cls, path: str | Path, format: str | None = None) -> CorpusSource:
        """The corpus file at ``path`` in ``format`` (told from its first line when None).

        Raises:
            DataError: the file is missing, not a regular file, unreadable, or of no known format.
        """
        path = Path(path)
        kind = not_a_regular_file(path)
        if kind == "missing":
            raise DataError("no such corpus file", path=str(path))
        if kind is not None:
            raise DataError(f"not a regular file but {kind}; give a corpus file", path=str(path))
        if format is not None and format not in FORMATS:
            raise DataError(f"unknown corpus format {format!r}; known: {', '.join(FORMATS)}", path=str(path))
        return cls(path, format or detect_format(path))

    @property
    def size(self) -> int:
        """The file's size in bytes (compressed, as stored)."""
        return self.path.stat().st_size

    def bytes_read(self) -> int:
        """How far into the file (in its stored, compressed bytes) the reading is: for a progress bar."""
        raw = self._raw
        try:
            return raw.tell() if raw is not None and not raw.closed else 0
        except (OSError, ValueError):
            return 0

    def passages(self, skip: int = 0) -> Iterator[SourcePassage]:
        """The file's passages in file order, after its first ``skip`` ones (skipped without being parsed
        where the format allows: a resume passes over what is stored at the speed of reading).

        Raises:
            DataError: naming the file, line and field of the first bad record.
        """
        handle = self._text()
        try:
            if self.format == "dpr":
                yield from self._dpr(handle, skip)
            else:
                yield from self._jsonl(handle, skip)
        except UnicodeDecodeError as exc:
            raise DataError(f"the file is not UTF-8 text ({exc.reason})", path=str(self.path)) from exc
        except (OSError, EOFError) as exc:  # a truncated or corrupt compressed file
            raise DataError(f"cannot read the file to its end ({exc})", path=str(self.path)) from exc
        finally:
            handle.close()
            if self._raw is not None:  # a GzipFile given a file object leaves it open
                self._raw.close()

    def _text(self) -> IO[str]:
        try:
            raw: BinaryIO = self.path.open("rb")
        except OSError as exc:
            raise DataError(f"cannot read the file ({exc.strerror or exc})", path=str(self.path)) from exc
        self._raw = raw
        return _decompressed(self.path, raw)

    def _jsonl(self, handle: IO[str], skip: int) -> Iterator[SourcePassage]:
        position = 0
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            position += 1
            if position <= skip:
                continue
            where = Where(str(self.path), line=line_no)
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise where.error(f"malformed JSON: {exc.msg} (column {exc.colno})") from exc
            except (ValueError, RecursionError) as exc:
                raise where.error(f"unreadable JSON: {exc}") from exc
            yield self._flashrag(row, where) if self.format == "flashrag" else _hopkit(row, where, position - 1)

    @staticmethod
    def _flashrag(row: object, where: Where) -> SourcePassage:
        obj = as_object(row, where)
        source_id = _source_id(obj, where)
        title, text = flashrag_title_text(get_str(obj, "contents", where.with_id(source_id)))
        return SourcePassage(source_id, title.strip(), text.strip())

    def _dpr(self, handle: IO[str], skip: int) -> Iterator[SourcePassage]:
        reader = csv.reader(handle, delimiter="\t")
        position = 0
        for row in reader:
            if reader.line_num == 1 and tuple(field.strip() for field in row) == DPR_HEADER:
                continue
            if not row:
                continue
            position += 1
            if position <= skip:
                continue
            if len(row) != 3:
                raise DataError(f"expected 3 tab-separated fields (id, text, title), got {len(row)}",
                                path=str(self.path), line=reader.line_num)
            source_id, text, title = row
            if not source_id.strip():
                raise DataError("empty passage id", path=str(self.path), line=reader.line_num, field="id")
            yield SourcePassage(source_id.strip(), title.strip(), text.strip())


def _decompressed(path: Path, raw: BinaryIO) -> IO[str]:
    stream: BinaryIO = raw
    if path.suffix == ".gz":
        stream = gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[assignment]
    elif path.suffix == ".bz2":
        stream = bz2.BZ2File(raw, mode="rb")  # type: ignore[assignment]
    # newline="" keeps a quoted DPR field's newlines for csv; JSONL lines end at "\n" either way
    return io.TextIOWrapper(_tar_member(path, stream), encoding="utf-8", newline="")


def _tar_member(path: Path, stream: BinaryIO) -> BinaryIO:
    """``stream`` itself, or, when it is a tar archive, its first regular file, read as a stream.

    Search-R1's ``wiki-18.jsonl.gz`` (the Hub dataset PeterJinGo/wiki-18-corpus) is such a file: by its
    name gzipped JSONL, but a gzipped tar archive holding one file, FlashRAG's ``wiki_dump.jsonl`` (its
    README's ``gzip -d`` leaves the tar). Told by the POSIX tar header's ``ustar`` mark at byte 257.

    Raises:
        DataError: a tar archive holding no regular file.
    """
    buffered = io.BufferedReader(stream)  # type: ignore[arg-type]
    header = buffered.peek(TAR_MARK_AT + len(TAR_MARK))[:TAR_MARK_AT + len(TAR_MARK)]
    if header[TAR_MARK_AT:] != TAR_MARK:
        return buffered
    archive = tarfile.open(fileobj=buffered, mode="r|")
    for member in archive:
        if member.isfile():
            found = archive.extractfile(member)
            if found is not None:
                return io.BufferedReader(_Forward(found))  # type: ignore[return-value]
    raise DataError("a tar archive holding no file; give the corpus file itself", path=str(path))


class _Forward(io.RawIOBase):
    """A stream read forward only (a member of a tar archive read as a stream), as a raw stream that says so."""

    def __init__(self, inner: IO[bytes]) -> None:
        self.inner = inner

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.inner.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)


def _source_id(obj: Mapping[str, Any], where: Where) -> str:
    value = obj.get("id")
    if value is None:
        raise where.error("no passage id", "id")
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise where.error(f"expected a string or an integer, got {type_name(value)}", "id")
    source_id = str(value).strip()
    if not source_id:
        raise where.error("empty passage id", "id")
    return source_id


def _hopkit(row: object, where: Where, position: int) -> SourcePassage:
    obj = as_object(row, where)
    source_id = _source_id(obj, where) if "id" in obj else str(position)
    where = where.with_id(source_id)
    return SourcePassage(source_id, get_str(obj, "title", where).strip(), get_str(obj, "text", where).strip())


def detect_format(path: Path) -> str:
    """The format of a corpus file, told from its first non-blank line.

    Raises:
        DataError: the file is unreadable, empty, or its first line fits no format (naming it).
    """
    try:
        with path.open("rb") as raw, _decompressed(path, raw) as handle:
            line_no, line = 0, ""
            for line_no, line in enumerate(handle, start=1):
                if line.strip():
                    break
            else:
                raise DataError("the corpus file is empty", path=str(path))
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise DataError(f"cannot read the file ({exc})", path=str(path)) from exc
    if tuple(field.strip() for field in line.split("\t")) == DPR_HEADER:
        return "dpr"
    where = Where(str(path), line=line_no)
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise where.error(f"neither JSON nor DPR's TSV header (id, text, title); {_formats_hint()}") from exc
    if isinstance(obj, dict) and "contents" in obj and "title" not in obj:
        return "flashrag"
    if isinstance(obj, dict) and "title" in obj and "text" in obj:
        return "hopkit"
    raise where.error(f"a JSON line of no corpus format known; {_formats_hint()}")


def _formats_hint() -> str:
    return ('expected FlashRAG\'s {"id", "contents"}, hopkit\'s {"title", "text"} or DPR\'s TSV with the '
            "header id, text, title; name the format with --format " + "|".join(FORMATS))
