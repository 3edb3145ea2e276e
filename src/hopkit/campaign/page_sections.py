"""Writes one section of a docs page (docs/benchmarks.md, docs/notebook.md), leaving the others alone, says which command
wrote it, and reads back a section's command."""

from __future__ import annotations

import os
import re
import shlex
import sys
from pathlib import Path

from hopkit.campaign.environment import BENCHMARKS_MD, ROOT
from hopkit.environment import data_dir

HEADER = "# Benchmarks\n\nEvery section is written by the script it names; rerun that command to refresh it.\n"


def _shown(path: str | Path) -> str:
    """``path`` relative to the repository when that is shorter to read (``../shared/data``)."""
    absolute = Path(path).absolute()
    relative = os.path.relpath(absolute, ROOT)
    return relative if not relative.startswith("../..") else str(absolute)


def command_line() -> str:
    """The command running now, as typed: the data folder it reads, then ``hopkit campaign TOOL`` and its
    arguments, or the interpreter and the script or module (paths shown relative to the repository)."""
    spec = getattr(sys.modules["__main__"], "__spec__", None)
    data = data_dir()
    prefix = f"HOPKIT_DATA_DIR={shlex.quote(_shown(data))} " if data is not None else ""
    if spec is None and not sys.argv[0].endswith(".py"):  # a console script: hopkit campaign ...
        return f"{prefix}{shlex.quote(_shown(sys.argv[0]))} {shlex.join(sys.argv[1:])}".rstrip()
    target = f"-m {spec.name}" if spec is not None and spec.name else shlex.quote(_shown(sys.argv[0]))
    return f"{prefix}{_shown(sys.executable)} {target} {shlex.join(sys.argv[1:])}".rstrip()


def tool_arguments(command: str, module: str) -> list[str]:
    """The arguments a section's command gave ``module`` (``hopkit.campaign.method_claims``), whether it ran
    as ``hopkit campaign TOOL ...`` or as ``python -m MODULE ...``.

    Raises:
        ValueError: the command runs neither.
    """
    from hopkit.cli.campaign import TOOLS

    argv = shlex.split(command)
    if module in argv:
        return argv[argv.index(module) + 1:]
    tools = [name for name, (stem, _) in TOOLS.items() if f"hopkit.campaign.{stem}" == module]
    for at in range(len(argv) - 1):
        if argv[at] == "campaign" and argv[at + 1] in tools:
            return argv[at + 2:]
    raise ValueError(f"the command runs neither hopkit campaign {' / '.join(tools) or '?'} nor {module}: {command}")


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
