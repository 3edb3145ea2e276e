"""What the tests of the docs pages' Python examples share: the toy corpus, and the page's code run as printed."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Any

from hopkit.records import Corpus, Paragraph, Query
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store

DOCS = Path(__file__).resolve().parents[2] / "docs"
PARAGRAPHS = (
    Paragraph(0, "Velmora Ironworks", "Velmora Ironworks was founded by Ada Quill in 1871."),
    Paragraph(1, "Ada Quill", "Ada Quill was an engineer born in Tarsk."),
    Paragraph(2, "Tarsk", "Tarsk is a port city on the northern coast."),
    Paragraph(3, "Halvicke Glassworks", "Halvicke Glassworks was founded in Orlen by Maren Tolloway."),
)
QUERIES = (
    Query("q1", "Where was the founder of Velmora Ironworks born?", ("Tarsk",), gold_paragraph_ids=(0, 1)),
    Query("q2", "Who founded Halvicke Glassworks?", ("Maren Tolloway",), gold_paragraph_ids=(3,)),
)
#: The model a page names, and the embedded one the tests run in its place.
PAGE_MODEL, TEST_MODEL = 'llm="qwen2.5-coder-1.5b"', 'llm="smollm2"'


def python_example(page: Path, builds: str) -> str:
    """The page's one Python block that contains ``builds`` (e.g. ``"MIGRESGenerationPipeline("``)."""
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    [example] = [block for block in blocks if builds in block]
    return example


def run_example(page: Path, builds: str) -> tuple[dict[str, Any], str]:
    """Run the page's example with the embedded model on the toy corpus, in the store $HOPKIT_DB_URL names.

    Returns:
        The example's names after it ran, and what it printed.
    """
    Store(DBConnection.from_config().get_session_factory()).add_corpus(Corpus("toy", PARAGRAPHS, QUERIES))
    code = python_example(page, builds).replace(PAGE_MODEL, TEST_MODEL)
    namespace: dict[str, Any] = {}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, str(page), "exec"), namespace)  # the page's own code, never model output
    return namespace, printed.getvalue()
