"""The QA sections of docs/notebook.md rebuilt from the saved runs, with no model: checked or rewritten.

Each section qa_bench wrote names its command; this reads the variants, the samples and the
number of questions from it, restores the saved runs (``benchmarks/results/runs``) into a
scratch store, builds the section's body again (:func:`hopkit.campaign.qa_section.section_body`:
the cells left out, the tables and the method tables) and compares it with the page. The
run ids are those of the benchmark's model, named by a stand-in that loads nothing.

    HOPKIT_DATA_DIR=../shared/data .venv/bin/hopkit campaign sections [--write]

``--write`` replaces each section's body by the rebuilt one, keeping its heading, command and
descriptions; the plots are not redrawn. tests/benchmarks/test_qa_sections.py runs the check.
"""

from __future__ import annotations

import argparse
import difflib
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hopkit.campaign.page_sections import tool_arguments, write_section
from hopkit.campaign.environment import LLM_NAME, NOTEBOOK_MD, use_home
from hopkit.campaign.qa_bench import command_parser
from hopkit.campaign.qa_pipelines import SKIPPED
from hopkit.campaign.qa_section import Cell, score_section, section_body
from hopkit.campaign.qa_until_decided import section_limits
from hopkit.campaign.retired_runs import rebuilding_section, section_run_id
from hopkit.campaign.saved_run_ids import stand_in_pipeline
from hopkit.campaign.saved_runs import saved_run_files
from hopkit.data.corpus import pool_corpus
from hopkit.data.registry import load_dataset, sample_path
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store
from hopkit.store.transfer import import_runs

SECTION = re.compile(r"<!-- bench:(\S+) -->\n(.*?)\n<!-- /bench:\1 -->", re.S)
COMMAND = re.compile(r"^Command: `(?P<command>[^`]*(?:-m hopkit\.campaign\.qa_bench|hopkit campaign run) [^`]*)`", re.M)
#: Where a section's body starts: the stops of its pairs, the note on the cells left out, else the comparison table.
BODY = re.compile(r"^(Until decided:|Not in the tables|\| Run \|)", re.M)
SAMPLES = ("hotpotqa", "2wikimultihopqa", "musique", "strategyqa")


@dataclass(frozen=True)
class QASection:
    """A section of the page written by qa_bench.

    Attributes:
        name: the section's marker name (``qa-migres``).
        header: its heading, command and descriptions, as on the page.
        body: the rest, as on the page: what :func:`rebuilt_body` builds again.
        args: its command's arguments, read by qa_bench's own parser.
    """

    name: str
    header: str
    body: str
    args: argparse.Namespace

    @property
    def heading_methods(self) -> list[str]:
        """The variants its heading names (``## QA: nor, oner with ...``)."""
        heading = self.header.splitlines()[0]
        return heading.removeprefix("## QA: ").split(" with ", 1)[0].split(", ")


def qa_sections(markdown: str) -> list[QASection]:
    """Every section of ``markdown`` whose command is qa_bench's, in page order."""
    sections = []
    for match in SECTION.finditer(markdown):
        text = match.group(2)
        command = COMMAND.search(text)
        body = BODY.search(text)
        if command is None or body is None:
            continue
        args = command_parser().parse_args(tool_arguments(command.group("command"), "hopkit.campaign.qa_bench"))
        sections.append(QASection(match.group(1), text[:body.start()].rstrip(), text[body.start():], args))
    return sections


def restored_store(path: Path) -> Any:
    """A store at ``path`` holding the samples' pooled corpora and every saved run; its session factory."""
    session_factory = DBConnection(f"sqlite:///{path}").get_session_factory()
    store = Store(session_factory)
    for dataset in SAMPLES:
        if dataset not in store.datasets():
            store.add_corpus(pool_corpus(dataset, load_dataset(dataset, sample_path(dataset))))
    if not store.runs():
        for saved in saved_run_files():
            import_runs(store, saved)
    return session_factory


def rebuilt_body(session_factory: Any, section: QASection) -> str:
    """The body of ``section`` built from the stored runs, as qa_bench writes it.

    Raises:
        SystemExit: the section was made with another model than the benchmark's (its run ids
            need that model).
    """
    args = section.args
    if args.llm != LLM_NAME:
        raise SystemExit(f"section {section.name}: made with {args.llm}; only {LLM_NAME}'s run ids are known "
                         "without loading the model")
    store = Store(session_factory)
    with rebuilding_section(section.name):
        cells = [Cell(method, dataset, section_run_id(method, dataset, stand_in_pipeline(
                     method, dataset, session_factory, thresholds=args.thresholds).run_spec().run_id))
                 for dataset in args.datasets for method in args.methods if (method, dataset) not in SKIPPED]
        limit, opening = section_limits(store, args, cells, None)
        scored = score_section(store, cells, args.datasets, limit)
        return "\n\n".join([*opening, *section_body(session_factory, store, scored, section.name, None)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="replace each differing body by the rebuilt one")
    parser.add_argument("--store", type=Path, default=None, help="the scratch store (default: a temporary one)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        store_path = args.store or Path(scratch) / "hopkit.db"
        use_home(store_path.parent)  # the BM25 indexes
        session_factory = restored_store(store_path)
        differing = 0
        for section in qa_sections(NOTEBOOK_MD.read_text(encoding="utf-8")):
            body = rebuilt_body(session_factory, section)
            if body == section.body:
                print(f"{section.name}: same")
                continue
            differing += 1
            print(f"{section.name}: DIFFERENT")
            print("\n".join(difflib.unified_diff(section.body.splitlines(), body.splitlines(), "page", "rebuilt",
                                                 lineterm="", n=0)))
            if args.write:
                write_section(section.name, f"{section.header}\n\n{body}", NOTEBOOK_MD)
    return 1 if differing and not args.write else 0


if __name__ == "__main__":
    raise SystemExit(main())
