"""Writes one benchmark's section of docs/benchmarks.md, leaving the others alone."""

from __future__ import annotations

import re
from pathlib import Path

BENCHMARKS_MD = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"
HEADER = "# Benchmarks\n\nEvery section is written by the script it names; rerun that command to refresh it.\n"


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
