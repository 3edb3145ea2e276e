"""Writes one benchmark's section of docs/benchmarks.md, leaving the others alone, and says
which command wrote it."""

from __future__ import annotations

import os
import re
import shlex
import sys
from pathlib import Path

from benchmarks.environment import BENCHMARKS_MD, ROOT
from hopkit.environment import data_dir

HEADER = "# Benchmarks\n\nEvery section is written by the script it names; rerun that command to refresh it.\n"


def _shown(path: str | Path) -> str:
    """``path`` relative to the repository when that is shorter to read (``../shared/data``)."""
    absolute = Path(path).absolute()
    relative = os.path.relpath(absolute, ROOT)
    return relative if not relative.startswith("../..") else str(absolute)


def command_line() -> str:
    """The command running now, as typed: the data folder it reads, the interpreter, the
    script or module and its arguments (paths shown relative to the repository)."""
    spec = getattr(sys.modules["__main__"], "__spec__", None)
    target = f"-m {spec.name}" if spec is not None and spec.name else shlex.quote(_shown(sys.argv[0]))
    data = data_dir()
    prefix = f"HOPKIT_DATA_DIR={shlex.quote(_shown(data))} " if data is not None else ""
    return f"{prefix}{_shown(sys.executable)} {target} {shlex.join(sys.argv[1:])}".rstrip()


def write_section(name: str, markdown: str, path: Path = BENCHMARKS_MD) -> None:
    """Replace (or append) the section between ``<!-- bench:NAME -->`` markers."""
    text = path.read_text(encoding="utf-8") if path.exists() else HEADER
    block = f"<!-- bench:{name} -->\n{markdown.strip()}\n<!-- /bench:{name} -->"
    pattern = re.compile(rf"<!-- bench:{re.escape(name)} -->.*?<!-- /bench:{re.escape(name)} -->", re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _: block, text)
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def markdown_table(header: list[str], rows: list[str]) -> str:
    """A markdown table: the header, its rule, then the rows (each already a ``| ... |`` line)."""
    return "| " + " | ".join(header) + " |\n|" + "|".join(["---"] * len(header)) + "|\n" + "\n".join(rows)
