"""The option tables of ``docs/configs.md``, generated from the options dataclasses.

A table is one options dataclass: a row per field, its name, its type and range in words
(:func:`hopkit.options.expected`, a ``Literal``'s or a ``choices`` field's values spelled out), what its
docstring's ``Attributes:`` section says of it, and its default. It is written between the markers
``<!-- options:NAME:start -->`` and ``<!-- options:NAME:end -->`` (NAME: a registered method, whose
options class :data:`~hopkit.methods.registry.MethodEntry.options` it draws); the prose around the
markers is the page's own. A method's table moves under this module by its markers alone. A built-in
method whose table the page lacks gets one, with a line naming its YAML config class, at the end of the
methods' options (before :data:`NEW_TABLES_BEFORE`): a new method's author runs ``--write``, and edits
the page only to say more.

Regenerate after changing an options class or its docstring::

    python -m hopkit.report.option_tables --write     # rewrite the sections
    python -m hopkit.report.option_tables --check     # exit 1 naming the sections out of date

``tests/config/test_option_tables.py`` fails while a section is not what this module writes.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import re
import sys
import types
import typing
from pathlib import Path
from typing import Any, Literal, Sequence

import yaml

from hopkit.methods.registry import BUILT_IN, entries
from hopkit.options import expected, option_choices, parameter_types

#: The page the tables are written into (this file is src/hopkit/report/option_tables.py).
PAGE = Path(__file__).resolve().parents[3] / "docs" / "configs.md"
COMMAND = "python -m hopkit.report.option_tables --write"
#: The heading the options of a method new to the page are written above.
NEW_TABLES_BEFORE = "## Retrieval and LLM options"
_SECTION = re.compile(r"<!-- options:(?P<name>[a-z0-9-]+):start -->\n.*?<!-- options:(?P=name):end -->", re.S)
_ROLE = re.compile(r":[a-z]+:`~?(?P<name>[^`]+)`")
_ENTRY = re.compile(r"(?P<names>[a-z_][a-z0-9_]*(?:, [a-z_][a-z0-9_]*)*): (?P<text>.*)")
# an entry that only points to the class describing the field ("see :class:`OneRConfig`."): not a description
_POINTER = re.compile(r"see :[a-z]+:`[^`]+`\.?")


def attribute_docs(options: type) -> dict[str, str]:
    """What the ``Attributes:`` sections of the docstrings of ``options`` and of the classes it extends say of
    each field, one line each (a subclass's entry over its base's)."""
    said: dict[str, str] = {}
    for cls in reversed(options.__mro__):
        if "__doc__" in vars(cls):
            said.update(_attributes_of(cls.__doc__ or ""))
    return said


#: Python's None (a YAML file's word for it is null), or a double-quoted text to leave as it is
_NONE_OR_QUOTED = re.compile(r'"[^"]*"|\bNone\b')


def _attributes_of(docstring: str) -> dict[str, str]:
    """What the ``Attributes:`` section of one docstring says of each field."""
    lines = inspect.cleandoc(docstring).splitlines()
    if "Attributes:" not in lines:
        return {}
    said: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in lines[lines.index("Attributes:") + 1:]:
        if line and not line.startswith(" "):
            break  # the next section
        entry = _ENTRY.fullmatch(line.strip()) if line.startswith("    ") and not line.startswith("     ") else None
        if entry is not None:
            current = [entry["text"]]
            if not _POINTER.fullmatch(entry["text"]):
                said.update(dict.fromkeys(entry["names"].split(", "), current))
        elif current is not None and line.strip():
            current.append(line.strip())
    return {name: _markdown(" ".join(words)) for name, words in said.items()}


def _markdown(text: str) -> str:
    """reStructuredText's inline literals (double backticks) and cross-references (``:data:`~x.NAME```) as
    Markdown's literals, and Python's ``None`` as YAML's ``null`` (not inside a quoted text, which is shown
    as written)."""
    literal = _ROLE.sub(lambda match: f"`{match['name'].rsplit('.', 1)[-1]}`", text).replace("``", "`")
    return _NONE_OR_QUOTED.sub(lambda match: "null" if match[0] == "None" else match[0], literal)


def _cell(text: str) -> str:
    """``text`` in a table cell: its pipes escaped (its backticks are Markdown's own)."""
    return text.replace("|", "\\|")


def _shown(value: Any) -> str:
    """A value as a YAML file writes it, in a table cell."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"`{value}`" if value else '`""`'
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    if isinstance(value, (dict, list, tuple)):
        return f"`{yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=10**6).strip()}`"
    return str(value)


def _kind(hint: Any, field: dataclasses.Field[Any]) -> str:
    """A field's type and range in words; the values a ``Literal`` or ``choices`` field takes spelled out."""
    values = option_choices(field)
    if values is None and typing.get_origin(hint) is Literal:
        values = list(typing.get_args(hint))
    if values is None:
        return _in_words(hint)
    shown = [_shown(value) for value in values]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"


def _in_words(hint: Any) -> str:
    """:func:`~hopkit.options.expected`, but an options dataclass (nested options) is a mapping of its options."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return " or ".join(_in_words(member) for member in typing.get_args(hint))
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        names = ", ".join(f"`{field.name}`" for field in dataclasses.fields(hint))
        return f"a mapping of `{hint.__name__}`'s options ({names})"
    return expected(hint)


def _default(field: dataclasses.Field[Any]) -> str:
    if field.default is not dataclasses.MISSING:
        return _shown(field.default)
    if field.default_factory is not dataclasses.MISSING:
        return _shown(field.default_factory())
    return "(required)"


def option_table(options: type) -> str:
    """The Markdown table of ``options``'s fields: option, type and range (with what its docstring says),
    default.

    Raises:
        ValueError: a field its docstring's ``Attributes:`` section does not describe.
    """
    said = attribute_docs(options)
    hints = parameter_types(options)
    rows = ["| option | type and range | default |", "|---|---|---|"]
    for field in dataclasses.fields(options):
        if field.name not in said:
            raise ValueError(f"{options.__qualname__}'s docstring does not describe its field {field.name!r} "
                             "under Attributes:")
        kind = f"{_kind(hints[field.name], field)}: {said[field.name]}"
        rows.append(f"| `{field.name}` | {_cell(kind)} | {_cell(_default(field))} |")
    return "\n".join(rows)


def section(name: str) -> str:
    """The marked section of method ``name``'s options table, markers included."""
    return (f"<!-- options:{name}:start -->\n<!-- generated by {COMMAND} from "
            f"{entries()[name].options.__qualname__}: edit the class and its docstring, not this table -->\n"
            f"{option_table(entries()[name].options)}\n<!-- options:{name}:end -->")


def generated(page: str) -> str:
    """``page`` with each of its marked sections as this module writes it, and a section for each built-in
    method it has none of (:func:`missing_sections`).

    Raises:
        ValueError: a section names no registered method, or a built-in method's table is missing and the
            page has no :data:`NEW_TABLES_BEFORE` heading to write it above.
    """
    def written(match: re.Match[str]) -> str:
        if match["name"] not in entries():
            raise ValueError(f"docs/configs.md: the section options:{match['name']} names no registered method; "
                             f"registered: {', '.join(sorted(entries()))}")
        return section(match["name"])

    current = _SECTION.sub(written, page)
    missing = missing_sections(current)
    if not missing:
        return current
    if f"\n{NEW_TABLES_BEFORE}\n" not in current:
        raise ValueError(f"docs/configs.md: no heading {NEW_TABLES_BEFORE!r} to write the options of "
                         f"{', '.join(missing)} above")
    added = "".join(_introduced(name) for name in missing)
    return current.replace(f"\n{NEW_TABLES_BEFORE}\n", f"\n{added}{NEW_TABLES_BEFORE}\n", 1)


def missing_sections(page: str) -> list[str]:
    """The built-in methods whose options tables ``page`` lacks, in the registry's order."""
    shown = set(sections_in(page))
    return [name for name, entry in entries().items() if entry.build.__module__ in BUILT_IN and name not in shown]


def _introduced(name: str) -> str:
    from hopkit.pipelines.generation.registered import method_pipeline_config

    entry = entries()[name]
    sets = f"`run(top_k=...)` sets `{entry.top_k}`" if entry.top_k else "it has no `top_k`"
    return (f"`{method_pipeline_config(name).__name__}` ({entry.title}; see `docs/methods/{name}.md`; {sets}) "
            f"adds:\n\n{section(name)}\n\n")


def sections_in(page: str) -> list[str]:
    """The methods whose options tables ``page`` has as generated sections."""
    return [match["name"] for match in _SECTION.finditer(page)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hopkit.report.option_tables", description=__doc__.split("\n")[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", action="store_true",
                        help="rewrite the generated sections of docs/configs.md, adding the table of a built-in "
                             "method it lacks")
    action.add_argument("--check", action="store_true", help="exit 1 if a section is out of date")
    arguments = parser.parse_args(argv)
    page = PAGE.read_text(encoding="utf-8")
    current = generated(page)
    if arguments.write:
        if current != page:
            PAGE.write_text(current, encoding="utf-8")
        print(f"{PAGE}: {len(sections_in(current))} option tables")
        return 0
    stale = [name for name in sections_in(page) if section(name) not in page] + missing_sections(page)
    if stale:
        print(f"{PAGE}: out of date: {', '.join(stale)}; run {COMMAND}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
