"""The payload tables of ``docs/traces.md``, generated from each registered method's payload types.

Each method's table sits between ``<!-- payloads: NAME -->`` and ``<!-- /payloads: NAME -->``:
one row per field of each payload (its kind, the JSON place it is stored at, its type, whether
an older trace may lack it), then the records nested in them. ``tests/traces/test_payload_docs.py``
fails when the document and the types differ; rewrite the tables with::

    python -m hopkit.methods.payload_docs docs/traces.md

A method whose table the document lacks gets one, under a heading of its title, at the end of the
``## Payload types`` section (:data:`SECTION`): a new method's author runs the command, and edits the
page only to say more.
"""

from __future__ import annotations

import argparse

import re
import sys
import typing
from dataclasses import MISSING, fields, is_dataclass
from pathlib import Path
from typing import Any, Sequence

from hopkit.traces.payload import Payload, Record, json_fields

__all__ = ["method_tables", "payload_table", "rewrite"]

#: The section the tables of methods new to the document are added at the end of.
SECTION = "## Payload types"

_BLOCK = re.compile(r"(<!-- payloads: (?P<name>[a-z0-9-]+) -->\n)(?P<body>.*?)(<!-- /payloads: (?P=name) -->)", re.S)


def payload_table(payloads: Sequence[type[Payload]]) -> str:
    """The markdown table of ``payloads`` and of the records nested in them."""
    rows = ["| payload | kind | field | JSON | type | older traces may lack it |", "|---|---|---|---|---|---|"]
    records: list[type[Record]] = []
    for cls in payloads:
        for item, (place, kind) in zip(fields(cls), json_fields(cls)):
            rows.append(f"| `{cls.__name__}` | `{cls.kind}` | `{item.name}` | `{place}` | {kind} | "
                        f"{'yes' if _has_default(item) else ''} |")
        _nested(cls, records)
    if records:
        rows += ["", "| record | key | type | optional |", "|---|---|---|---|"]
        for record in records:
            for item, (key, kind) in zip(fields(record), json_fields(record)):
                rows.append(f"| `{record.__name__}` | `{key}` | {kind} | {'yes' if _has_default(item) else ''} |")
    return "\n".join(rows) + "\n"


def method_tables() -> dict[str, str]:
    """Each registered method's table, by method name (methods without payloads left out)."""
    from hopkit.methods.registry import entries

    return {name: payload_table(entry.payloads) for name, entry in entries().items() if entry.payloads}


def rewrite(text: str, tables: dict[str, str], titles: dict[str, str] | None = None) -> str:
    """``text`` with each ``payloads`` block replaced by its method's table (unknown names left as they are), and a
    block added for each method of ``tables`` it lacks, headed by its title in ``titles`` (its name if none).

    Raises:
        ValueError: a block is missing and ``text`` has no :data:`SECTION` to add it to.
    """
    def replace(match: re.Match[str]) -> str:
        body = tables.get(match["name"], match["body"])
        return match.group(1) + body + match.group(4)

    current = _BLOCK.sub(replace, text)
    missing = [name for name in tables if name not in documented(current)]
    if not missing:
        return current
    start = current.find(f"\n{SECTION}\n")
    if start < 0:
        raise ValueError(f"no section {SECTION!r} to add the payload tables of {', '.join(missing)} to")
    end = current.find("\n## ", start + len(SECTION) + 2)
    end = len(current) if end < 0 else end + 1
    added = "".join(f"### {(titles or {}).get(name, name)}\n\n<!-- payloads: {name} -->\n{tables[name]}"
                    f"<!-- /payloads: {name} -->\n\n" for name in missing)
    return current[:end] + added + current[end:]


def documented(text: str) -> dict[str, str]:
    """The ``payloads`` blocks of ``text``, by method name."""
    return {match["name"]: match["body"] for match in _BLOCK.finditer(text)}


def _nested(cls: type, found: list[type[Record]]) -> None:
    for kind in typing.get_type_hints(cls).values():
        for inner in _types_in(kind):
            if isinstance(inner, type) and is_dataclass(inner) and issubclass(inner, Record) and inner not in found:
                found.append(inner)
                _nested(inner, found)


def _types_in(kind: Any) -> list[Any]:
    args = typing.get_args(kind)
    return [kind] + [inner for arg in args for inner in _types_in(arg)]


def _has_default(item: Any) -> bool:
    return item.default is not MISSING or item.default_factory is not MISSING


def main(argv: Sequence[str]) -> int:
    """Rewrite the payload tables of the document named by ``argv[0]``."""
    parser = argparse.ArgumentParser(prog="python -m hopkit.methods.payload_docs",
                                     description="rewrite the payload tables of docs/traces.md, adding the "
                                                 "table of a method it lacks")
    parser.add_argument("document", type=Path, help="the page to rewrite, e.g. docs/traces.md")
    path = parser.parse_args(argv).document
    from hopkit.methods.registry import entries

    titles = {name: entry.title for name, entry in entries().items()}
    path.write_text(rewrite(path.read_text(encoding="utf-8"), method_tables(), titles), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
