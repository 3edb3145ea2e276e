"""Shared reading and validation helpers for the dataset format loaders.

Every loader reads untrusted files; these helpers turn each problem into one
:class:`~hopkit.errors.DataError` that names the file, the line (JSONL) or the
record (index and id), and the field.
"""

from __future__ import annotations

import bz2
import gzip
import json
import stat
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any

from hopkit.errors import DataError
from hopkit.records import ContextParagraph, Example

YES_NO = frozenset({"yes", "no"})


@dataclass(frozen=True)
class Where:
    """Where a record sits in a file, for error messages.

    Args:
        path: the file.
        line: 1-based line number (JSONL files).
        record: a description of the record, e.g. ``"#3 (id 'abc')"``.
        prefix: put before field names, for a nested object (``"paragraphs[2]."``).
    """

    path: str
    line: int | None = None
    record: str | None = None
    prefix: str = ""

    def with_id(self, record_id: str) -> Where:
        """Return a copy whose record description also names the record's id."""
        base = self.record or ""
        return replace(self, record=f"{base} (id {record_id!r})".strip())

    def nested(self, field: str) -> Where:
        """Return the place of the nested object in ``field`` (e.g. ``"paragraphs[2]"``)."""
        return replace(self, prefix=f"{self.prefix}{field}.")

    def error(self, message: str, field: str | None = None) -> DataError:
        """Build the DataError for a problem at this place."""
        if field is not None:
            field = self.prefix + field
        elif self.prefix:
            field = self.prefix.rstrip(".")
        return DataError(message, path=self.path, line=self.line, record=self.record, field=field)


def not_a_regular_file(path: Path) -> str | None:
    """What ``path`` is when it is not a regular file (a symbolic link to one counts as one), or None.

    Returns:
        ``"missing"``, ``"a folder"``, ``"a named pipe (FIFO)"``, ``"a device"``, ``"a socket"``, or None. A named
        pipe or a device (``/dev/zero``) is refused before it is opened: reading one could block or never end.
    """
    try:
        mode = path.stat().st_mode
    except OSError:  # not there, or a file where its path needs a folder
        return "missing"
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a socket" if stat.S_ISSOCK(mode) else "not a file"


def read_json(path: Path) -> Any:
    """Read a whole JSON file.

    Raises:
        DataError: the file cannot be read or is not valid JSON.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DataError(f"cannot read the file ({exc.strerror or exc})", path=str(path)) from exc
    except UnicodeDecodeError as exc:
        raise DataError(f"the file is not UTF-8 text ({exc.reason})", path=str(path)) from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(
            f"malformed JSON: {exc.msg} (column {exc.colno}); check the file is complete",
            path=str(path), line=exc.lineno,
        ) from exc
    except (ValueError, RecursionError) as exc:
        raise DataError(f"unreadable JSON: {_decoder_limit(exc)}", path=str(path)) from exc


def _decoder_limit(exc: ValueError | RecursionError) -> str:
    """What Python's JSON decoder refused besides syntax errors: a number with more digits
    than Python converts (ValueError) or nesting deeper than its recursion limit."""
    if isinstance(exc, RecursionError):
        return "nested too deeply for Python's JSON decoder"
    return f"{exc}".split(";")[0]


def read_json_list(path: Path) -> list[Any]:
    """Read a JSON file whose top level must be a list.

    Raises:
        DataError: not valid JSON, or the top level is not a list.
    """
    data = read_json(path)
    if not isinstance(data, list):
        raise DataError(f"expected a JSON list at the top level, got {type_name(data)}", path=str(path))
    return data


def iter_jsonl(path: Path) -> Iterator[tuple[Where, Any]]:
    """Yield ``(where, object)`` for every non-blank line of a JSONL file
    (``.gz`` and ``.bz2`` files are decompressed as they are read).

    Raises:
        DataError: the file cannot be read, or a line is not valid JSON.
    """
    try:
        handle = _open_text(path)
    except OSError as exc:
        raise DataError(f"cannot read the file ({exc.strerror or exc})", path=str(path)) from exc
    with handle:
        line_no = 0
        try:
            for line_no, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                where = Where(str(path), line=line_no)
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise where.error(f"malformed JSON: {exc.msg} (column {exc.colno})") from exc
                except (ValueError, RecursionError) as exc:
                    raise where.error(f"unreadable JSON: {_decoder_limit(exc)}") from exc
                yield where, obj
        except UnicodeDecodeError as exc:
            raise DataError(f"the file is not UTF-8 text ({exc.reason})", path=str(path),
                            line=line_no + 1) from exc
        except (OSError, EOFError) as exc:  # a truncated or corrupt compressed file
            raise DataError(f"cannot read the file past line {line_no} ({exc})", path=str(path)) from exc



def load_jsonl_examples(path: Path, parse: Callable[[Any, Where], Example]) -> list[Example]:
    """Every line of a JSONL dataset file parsed by ``parse``, each id once.

    Raises:
        DataError: what ``parse`` raises, or an id used on an earlier line (naming both lines).
    """
    examples = []
    seen: dict[str, int] = {}
    for where, row in iter_jsonl(path):
        example = parse(row, where)
        if example.id in seen:
            raise where.with_id(example.id).error(f"id already used on line {seen[example.id]}", "id")
        seen[example.id] = where.line or 0
        examples.append(example)
    return examples

def _open_text(path: Path) -> IO[str]:
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    if path.suffix == ".bz2":
        return bz2.open(path, "rt", encoding="utf-8")
    return path.open(encoding="utf-8")


def type_name(value: Any) -> str:
    """A JSON-flavoured name for the type of ``value`` (for error messages)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def as_object(value: Any, where: Where, field: str | None = None) -> Mapping[str, Any]:
    """Check that ``value`` is a JSON object."""
    if not isinstance(value, dict):
        raise where.error(f"expected a JSON object, got {type_name(value)}", field)
    return value


def get_field(obj: Mapping[str, Any], key: str, where: Where) -> Any:
    """Return ``obj[key]`` or raise a DataError naming the missing field."""
    if key not in obj:
        raise where.error("missing required field", key)
    return obj[key]


def get_str(obj: Mapping[str, Any], key: str, where: Where, *, allow_empty: bool = False,
            default: str | None = None) -> str:
    """Return a string field, stripped.

    Args:
        obj: the JSON object.
        key: the field name.
        where: the record's place, for errors.
        allow_empty: accept an empty (or all-whitespace) string.
        default: if given, returned when the field is absent or null.

    Raises:
        DataError: missing (without default), not a string, or empty when not allowed.
    """
    if default is not None and obj.get(key) is None:
        return default
    value = get_field(obj, key, where)
    return check_str(value, where, key, allow_empty=allow_empty)


def check_str(value: Any, where: Where, field: str, *, allow_empty: bool = False) -> str:
    """Check that ``value`` is a (non-empty) string and return it stripped."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)  # ids and numeric answers are sometimes numbers
    if not isinstance(value, str):
        raise where.error(f"expected a string, got {type_name(value)}", field)
    text = value.strip()
    if not text and not allow_empty:
        raise where.error("must not be empty", field)
    return text


def get_list(obj: Mapping[str, Any], key: str, where: Where, *, default: list[Any] | None = None) -> list[Any]:
    """Return a list field (``default`` when absent or null, if given)."""
    if default is not None and obj.get(key) is None:
        return default
    value = get_field(obj, key, where)
    if not isinstance(value, list):
        raise where.error(f"expected a list, got {type_name(value)}", key)
    return value


def get_bool(obj: Mapping[str, Any], key: str, where: Where, *, default: bool | None = None) -> bool:
    """Return a boolean field (``default`` when absent, if given)."""
    if default is not None and key not in obj:
        return default
    value = get_field(obj, key, where)
    if not isinstance(value, bool):
        raise where.error(f"expected true or false, got {type_name(value)}", key)
    return value


def join_sentences(sentences: Sequence[str]) -> str:
    """Join a paragraph's sentences into one text.

    HotpotQA's sentences carry their own leading space (``" The town ..."``), so
    they are concatenated as they are; 2WikiMultihopQA's do not, so a space is
    put between two sentences when neither side has one already.
    """
    text = ""
    for sentence in sentences:
        if text and not text[-1].isspace() and sentence and not sentence[0].isspace():
            text += " "
        text += sentence
    return text.strip()


def answer_type_of(answer: str) -> str:
    """``"yes_no"`` for a yes/no answer, else ``"span"``."""
    return "yes_no" if answer.strip().lower().rstrip(".") in YES_NO else "span"


def unique_answers(answers: Sequence[str]) -> tuple[str, ...]:
    """Drop empty and repeated answers, keeping the first occurrence's order."""
    seen: set[str] = set()
    out: list[str] = []
    for answer in answers:
        answer = answer.strip()
        if answer and answer not in seen:
            seen.add(answer)
            out.append(answer)
    return tuple(out)


def require_gold_titles_present(context: Sequence[ContextParagraph], titles: Sequence[str],
                                where: Where, field: str) -> None:
    """Raise if a supporting title does not name any paragraph of the context."""
    present = {p.title for p in context}
    for title in titles:
        if title not in present:
            raise where.error(f"supporting title {title!r} is not among the context paragraphs", field)
