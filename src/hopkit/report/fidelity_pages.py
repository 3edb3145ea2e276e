"""The fidelity tables of every registered method, rendered into the docs.

Each method package declares how it differs from its authors' code in its ``fidelity`` module
(:mod:`hopkit.methods.fidelity`). This module renders them into

- ``docs/fidelity.md``: what the kinds mean, a summary (one line per table: the reference and its
  counts per kind) and every table in full;
- each method's own page (``docs/methods/<name>.md``, or ``docs/<name>.md``), between the markers
  ``<!-- fidelity:start -->`` and ``<!-- fidelity:end -->``: the tables of that method's package.

Regenerate both after changing a table::

    python -m hopkit.report.fidelity_pages --write     # rewrite the pages
    python -m hopkit.report.fidelity_pages --check     # exit 1 naming the pages out of date

``tests/methods/test_fidelity_tables.py`` fails while a page is not what this module writes.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from hopkit.methods.fidelity import ASPECTS, KINDS, FidelityTable, Reference, fidelity_of
from hopkit.methods.registry import BUILT_IN, MethodEntry, entries
from hopkit.report.escape import markdown_cell

START = "<!-- fidelity:start -->"
END = "<!-- fidelity:end -->"
#: The repository's docs folder (this file is src/hopkit/report/fidelity_pages.py).
DOCS = Path(__file__).resolve().parents[3] / "docs"
COMMAND = "python -m hopkit.report.fidelity_pages --write"

KIND_MEANING = {
    "faithful": "hopkit does what the authors' code (or, where no code is public, the paper) does; the row "
                "says where both do it.",
    "changes-algorithm": "a departure that changes what the method computes; it is still to be fixed, and "
                         "results made with it are not the authors' method on that point.",
    "disclosed": "a departure kept on purpose, with its reason.",
    "cosmetic": "a difference that changes no prompt, no decision and no answer.",
}


@dataclass(frozen=True)
class MethodTables:
    """One registered method, the package that declares it and that package's fidelity tables."""

    entry: MethodEntry
    package: str
    tables: tuple[FidelityTable, ...]


def package_of(entry: MethodEntry) -> str:
    """The package that declares ``entry``: the built-in package its options class lives in, or, for a
    method an installed package registers, the nearest package above its options class that has a
    ``fidelity`` module (the options class's own module where none has)."""
    module = entry.options.__module__
    for package in BUILT_IN:
        if module == package or module.startswith(package + "."):
            return package
    candidate = module
    while "." in candidate:
        if fidelity_of(candidate):
            return candidate
        candidate = candidate.rpartition(".")[0]
    return module


def registered() -> list[MethodTables]:
    """Every registered method, in the registry's order, with its package's tables (empty where it has
    none)."""
    return [MethodTables(entry, package, fidelity_of(package))
            for entry in entries().values()
            for package in (package_of(entry),)]


def page_of(entry: MethodEntry, docs: Path = DOCS) -> Path:
    """The method's own docs page: ``docs/methods/<name>.md`` where it exists, else ``docs/<name>.md``
    where that exists, else ``docs/methods/<name>.md`` (to be created)."""
    for path in (docs / "methods" / f"{entry.name}.md", docs / f"{entry.name}.md"):
        if path.exists():
            return path
    return docs / "methods" / f"{entry.name}.md"


def _cell(text: str) -> str:
    return markdown_cell(" ".join(text.split()))


def reference_text(reference: Reference) -> str:
    """``owner/name@commit`` as a link to that commit's tree, or ``paper only``."""
    if not reference.has_code:
        return "paper only"
    short = reference.commit[:10] if reference.commit else ""
    return (f"[{markdown_cell(f'{reference.repository}@{short}')}]"
            f"(https://github.com/{reference.repository}/tree/{reference.commit})")


def counts(table: FidelityTable) -> dict[str, int]:
    return {kind: len(table.of_kind(kind)) for kind in KINDS}


def _table_name(table: FidelityTable) -> str:
    name = f"`{table.method}`"
    if table.variants:
        name += " (also " + ", ".join(f"`{variant}`" for variant in table.variants) + ")"
    return name


def render_table(table: FidelityTable, heading: str = "") -> str:
    """One table: an optional heading line, the reference, the counts and the rows, aspect by aspect."""
    reference = table.reference
    lines = [heading, ""] if heading else []
    lines.append(f"- Compared with: {markdown_cell(reference.paper)}; "
                 + (f"the authors' code, {reference_text(reference)}" if reference.has_code
                    else "the paper, no commit of the authors' code (the note says why)") + ".")
    if reference.files:
        lines.append("- Files read: " + ", ".join(markdown_cell(path) for path in reference.files) + ".")
    if reference.note:
        lines.append(f"- Note: {_cell(reference.note)}")
    lines.append("- Rows: " + ", ".join(f"{number} {kind}" for kind, number in counts(table).items()) + ".")
    lines += ["", "| aspect | point | authors | hopkit | kind | reason |", "|---|---|---|---|---|---|"]
    for aspect in ASPECTS:
        for row in table.rows:
            if row.aspect == aspect:
                kind = f"**{row.kind}**" if row.kind == "changes-algorithm" else row.kind
                lines.append("| " + " | ".join((row.aspect, _cell(row.point), _cell(row.authors), _cell(row.hopkit),
                                                kind, _cell(row.reason) if row.reason else "")) + " |")
    return "\n".join(lines)


def render_section(method: MethodTables, docs: Path = DOCS) -> str:
    """What a method's page holds between the markers: its package's tables (a line saying there is none
    where it has none)."""
    lines = ["## Fidelity to the authors' code", "",
             f"Generated from `{method.package}.fidelity` by `{COMMAND}`; every method's table, and what the "
             "kinds mean, are in [docs/fidelity.md](" + _fidelity_link(method, docs) + ").", ""]
    if not method.tables:
        lines.append(f"No fidelity table declared yet (`{method.package}.fidelity`).")
    elif len(method.tables) == 1:
        lines.append(render_table(method.tables[0]))
    else:
        lines.append("\n\n".join(render_table(table, f"### {_table_name(table)}") for table in method.tables))
    return "\n".join(lines)


def _fidelity_link(method: MethodTables, docs: Path) -> str:
    page = page_of(method.entry, docs)
    return "../fidelity.md" if page.parent.name == "methods" else "fidelity.md"


def render_fidelity_page(methods: Sequence[MethodTables], docs: Path = DOCS) -> str:
    """``docs/fidelity.md``."""
    lines = [
        "# Fidelity to the authors' code",
        "",
        "Every registered method was compared with its authors' code at a named commit (or, where no code is "
        "public, with its paper), point by point: the prompt, how documents enter it, retrieval, the loop and "
        "its stop, the stop sequences, the limits, decoding, how the answer is read and the defaults. Each "
        "point compared is one row, classified as one of:",
        "",
    ]
    lines += [f"- **{kind}**: {meaning}" for kind, meaning in KIND_MEANING.items()]
    lines += [
        "",
        "Every registered method has a table (a test fails when one has none); every aspect is compared at "
        "least once, so a table says what was checked as well as what differs. The tables are data, kept "
        "beside each method in its package's `fidelity` module (the schema is `hopkit.methods.fidelity`); "
        "this page and the section \"Fidelity to the authors' code\" of each method's page are generated "
        "from them. After changing a table, regenerate with",
        "",
        "```bash",
        COMMAND,
        "```",
        "",
        "(`--check` instead of `--write` names the pages that are out of date; "
        "`tests/methods/test_fidelity_tables.py` fails while one is).",
        "",
        "## Summary",
        "",
        "| method | package | reference | " + " | ".join(KINDS) + " |",
        "|---|---|---|" + "---|" * len(KINDS),
    ]
    for method in methods:
        if not method.tables:
            lines.append(f"| `{method.entry.name}` | `{method.package}` | no table yet | "
                         + " | ".join("-" for _ in KINDS) + " |")
        for table in method.tables:
            lines.append(f"| {_table_name(table)} | `{method.package}` | {reference_text(table.reference)} | "
                         + " | ".join(str(number) for number in counts(table).values()) + " |")
    for method in methods:
        page = page_of(method.entry, docs)
        link = page.relative_to(page.parents[1]).as_posix() if page.parent.name == "methods" else page.name
        lines += ["", f"## {markdown_cell(method.entry.title)} (`{method.entry.name}`)", "",
                  f"Declared in `{method.package}.fidelity`; the method's page: [{link}]({link}).", ""]
        if not method.tables:
            lines.append("No fidelity table declared yet.")
        elif len(method.tables) == 1:
            lines.append(render_table(method.tables[0]))
        else:
            lines.append("\n\n".join(render_table(table, f"### {_table_name(table)}") for table in method.tables))
    return "\n".join(lines) + "\n"


def with_section(text: str, section: str) -> str:
    """``text`` with what lies between the markers replaced by ``section``; where the page has no markers,
    the section is added at its end."""
    block = f"{START}\n{section}\n{END}"
    start, end = text.find(START), text.find(END)
    if start == -1 or end == -1 or end < start:
        return text.rstrip("\n") + "\n\n" + block + "\n"
    return text[:start] + block + text[end + len(END):]


def section_of(text: str) -> str | None:
    """What lies between the markers of a page (None where it has none)."""
    start, end = text.find(START), text.find(END)
    if start == -1 or end == -1 or end < start:
        return None
    return text[start + len(START):end].strip("\n")


def expected_pages(docs: Path = DOCS) -> dict[Path, str]:
    """Every page this module writes, with the text it should have now."""
    methods = registered()
    pages = {docs / "fidelity.md": render_fidelity_page(methods, docs)}
    for method in methods:
        page = page_of(method.entry, docs)
        current = page.read_text(encoding="utf-8") if page.exists() else f"# {method.entry.title}\n"
        pages[page] = with_section(current, render_section(method, docs))
    return pages


def stale_pages(docs: Path = DOCS) -> list[Path]:
    """The pages whose text is not what :func:`expected_pages` writes."""
    return [path for path, text in expected_pages(docs).items()
            if not path.exists() or path.read_text(encoding="utf-8") != text]


def write_pages(docs: Path = DOCS) -> list[Path]:
    """Write every page that is out of date; returns those written."""
    written = []
    for path, text in expected_pages(docs).items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite docs/fidelity.md and each method page's section")
    mode.add_argument("--check", action="store_true", help="exit 1 naming the pages that are out of date")
    parser.add_argument("--docs", type=Path, default=DOCS, help="the docs folder (default: the repository's)")
    args = parser.parse_args(argv)
    if args.write:
        for path in write_pages(args.docs):
            print(f"wrote {path}")
        missing = [method.entry.name for method in registered() if not method.tables]
        if missing:
            print("no fidelity table yet: " + ", ".join(missing), file=sys.stderr)
        return 0
    if args.check:
        stale = stale_pages(args.docs)
        for path in stale:
            print(f"out of date: {path} (run {COMMAND})", file=sys.stderr)
        return 1 if stale else 0
    sys.stdout.write(render_fidelity_page(registered(), args.docs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
