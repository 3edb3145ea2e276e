"""The field's setting in miniature: ``hopkit reproduce`` end to end on this machine (issue 72, "The setting on
this machine").

The published tables' setting is a corpus stored once (wiki-18), the benchmarks' splits in FlashRAG's format
answered on it, and the first N questions. Here the same commands run on what the samples hold:

1. the samples of HotpotQA, 2WikiMultihopQA and MuSiQue (``$HOPKIT_DATA_DIR``) are written, outside the
   repository (``.hopkit-bench/miniature/``), as FlashRAG dataset files (``id``, ``question``,
   ``golden_answers``, ``metadata``) and their paragraphs, pooled and deduplicated, as one wiki-18 JSONL file
   (``{"id", "contents"}``, the title in double quotes on the first line);
2. ``hopkit corpus add samples-wiki FILE`` stores that corpus once, and ``hopkit ingest flashrag FILE --name
   fr-DATASET --on-corpus samples-wiki`` stores each dataset's questions against it (no pooled paragraphs of
   their own: the open-domain setting, answer recall instead of paragraph recall);
3. ``hopkit reproduce TABLE --llm MODEL --methods ... --datasets ... --dataset-map ... --retrieval bm25 --first N``
   runs each table's cells in the bench store and prints hopkit's numbers beside the published ones.

The runs are saved to ``benchmarks/results/runs/`` (so the same command resumes them anywhere), each table's
printed output to ``benchmarks/results/reproduce_miniature.json``, and a section to docs/standard-setting.md::

    HOPKIT_DATA_DIR=../shared/data .venv/bin/hopkit campaign reproduce-miniature --write
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import json
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from hopkit.campaign import saved_runs
from hopkit.campaign.environment import BENCH_HOME, BENCH_STORE, DOCS, LLM_NAME, RESULTS, data_dir, \
    use_bench_home, use_local_models
from hopkit.campaign.page_sections import command_line, write_section
from hopkit.cli.numbers import integer
from hopkit.data.corpus import pool_corpus
from hopkit.data.registry import load_dataset, sample_path
from hopkit.records import Example
from hopkit.remote_retrieval.wire import search_r1_contents
from hopkit.store.store import Store

CORPUS = "samples-wiki"
#: table -> the benchmarks it has rows for that the samples hold
TABLES = {"flashrag": ("hotpotqa", "2wikimultihopqa"),
          "search-r1-paper": ("hotpotqa", "2wikimultihopqa", "musique")}
DATASETS = tuple(dict.fromkeys(dataset for datasets in TABLES.values() for dataset in datasets))
METHODS = ("nor", "oner")
RESULT = RESULTS / "reproduce_miniature.json"
PAGE = DOCS / "standard-setting.md"
SECTION = "reproduce-miniature"


def stored_name(dataset: str) -> str:
    return f"fr-{dataset}"


def flashrag_line(example: Example) -> str:
    """One question as a line of a FlashRAG dataset file."""
    return json.dumps({"id": example.id, "question": example.question, "golden_answers": list(example.answers),
                       "metadata": {"source": "hopkit sample"}}, ensure_ascii=False)


def wiki18_line(passage_id: int, title: str, text: str) -> str:
    """One passage as a line of Search-R1's wiki-18 JSONL (the title quoted on the first line of ``contents``)."""
    return json.dumps({"id": str(passage_id), "contents": search_r1_contents(title, text)}, ensure_ascii=False)


def write_files(folder: Path) -> tuple[Path, int, dict[str, Path]]:
    """The samples as FlashRAG dataset files and their pooled paragraphs as one gzipped wiki-18 file (with how
    many it holds)."""
    folder.mkdir(parents=True, exist_ok=True)
    examples = {dataset: load_dataset(dataset, sample_path(dataset, data_dir())) for dataset in DATASETS}
    files = {}
    for dataset, loaded in examples.items():
        files[dataset] = folder / f"{dataset}_dev_flashrag.jsonl"
        files[dataset].write_text("".join(flashrag_line(example) + "\n" for example in loaded), encoding="utf-8")
    pooled = pool_corpus(CORPUS, [example for loaded in examples.values() for example in loaded])
    corpus = folder / f"{CORPUS}.jsonl.gz"
    with gzip.open(corpus, "wt", encoding="utf-8") as out:
        for paragraph in pooled.paragraphs:
            out.write(wiki18_line(paragraph.id, paragraph.title, paragraph.text) + "\n")
    return corpus, len(pooled.paragraphs), files


class Tee(io.TextIOBase):
    """Writes to the console and keeps a copy."""

    def __init__(self, console: TextIO) -> None:
        self.console, self.kept = console, io.StringIO()

    def write(self, text: str) -> int:
        self.console.write(text)
        self.kept.write(text)
        return len(text)

    def flush(self) -> None:
        self.console.flush()


def hopkit(db: str, *argv: str) -> tuple[int, str]:
    """``hopkit --db DB ARGV`` in this process: its exit code and what it printed."""
    from hopkit.cli import main

    tee = Tee(sys.stdout)
    with contextlib.redirect_stdout(tee):
        code = main(["--db", db, *argv])
    return code, tee.kept.getvalue()


def store_setting(db: str, corpus: Path, files: dict[str, Path]) -> None:
    """The corpus stored once, each dataset's questions on it (both resume or stand as they are), and the saved
    runs on them restored (into the bench store only)."""
    code, _ = hopkit(db, "corpus", "add", CORPUS, str(corpus))
    if code:
        raise SystemExit(f"hopkit corpus add {CORPUS} failed (exit {code})")
    store = Store.connect(db)
    stored = set(store.datasets())
    for dataset, path in files.items():
        if stored_name(dataset) not in stored:
            code, _ = hopkit(db, "ingest", "flashrag", str(path), "--name", stored_name(dataset), "--on-corpus", CORPUS)
            if code:
                raise SystemExit(f"hopkit ingest flashrag {path} failed (exit {code})")
        saved_runs.restore(store, stored_name(dataset))


def reproduce_arguments(table: str, llm: str, first: int) -> list[str]:
    datasets = TABLES[table]
    return ["reproduce", table, "--llm", llm, "--methods", *METHODS, "--datasets", *datasets,
            "--dataset-map", *(f"{dataset}={stored_name(dataset)}" for dataset in datasets),
            "--retrieval", "bm25", "--first", str(first)]


def save_runs(db: str, datasets: set[str]) -> list[str]:
    """Each finished run on ``datasets`` saved to benchmarks/results/runs/ (the bench store's only)."""
    store = Store.connect(db)
    saved = [run.run_id for run in store.runs()
             if run.dataset in datasets and (run.finished or run.failed) and saved_runs.save(store, run.run_id)]
    return sorted(saved)


def section(saved: dict[str, Any]) -> str:
    blocks = []
    for table, outcome in saved["tables"].items():
        printed = outcome["printed"]
        table_part = printed[printed.index("dataset"):] if "dataset" in printed else printed
        blocks.append(f"`hopkit {' '.join(outcome['arguments'])}` ({outcome['seconds']:.0f} s, exit "
                      f"{outcome['exit']}):\n\n```\n{table_part.rstrip()}\n```")
    return ("### The setting in miniature, on this machine\n\n"
            f"Command: `{saved['command']}` ({saved['when']}; results: `benchmarks/results/reproduce_miniature.json`, "
            f"the runs: `benchmarks/results/runs/`, {len(saved['runs'])} files). The samples' first "
            f"{saved['first']} questions of each benchmark as FlashRAG dataset files, answered on one corpus of "
            f"their {saved['passages']:,} pooled paragraphs stored once as wiki-18 JSONL (`hopkit corpus add`, "
            f"`hopkit ingest flashrag --on-corpus`), by {saved['llm']} with BM25. The corpus is tiny and every "
            "question's own paragraphs are in it, so the numbers say the commands work, not how hopkit compares with "
            "the published ones: each difference of setting is listed under its table.\n\n"
            + "\n\n".join(blocks))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hopkit campaign reproduce-miniature",
                                     description="hopkit reproduce on the samples as FlashRAG files on a stored corpus "
                                                 "of their pooled paragraphs (docs/standard-setting.md)")
    parser.add_argument("--llm", default=LLM_NAME, help=f"the model config (default {LLM_NAME})")
    parser.add_argument("--first", type=integer(1), default=30,
                        help="the first N questions of each benchmark (default 30)")
    parser.add_argument("--tables", nargs="+", choices=sorted(TABLES), default=list(TABLES))
    parser.add_argument("--write", action="store_true", help="save the runs, the results and the section in the "
                                                             "repository (the bench store's runs only)")
    parser.add_argument("--db", default=f"sqlite:///{BENCH_STORE}", help="the store (default: the bench store)")
    args = parser.parse_args(argv)
    use_bench_home()
    use_local_models()
    corpus, passages, files = write_files(BENCH_HOME / "miniature")
    store_setting(args.db, corpus, files)
    saved: dict[str, Any] = {"command": command_line(), "when": time.strftime("%Y-%m-%d"), "llm": args.llm,
                             "first": args.first, "passages": passages, "tables": {}}
    for table in args.tables:
        arguments = reproduce_arguments(table, args.llm, args.first)
        started = time.perf_counter()
        code, printed = hopkit(args.db, *arguments)
        saved["tables"][table] = {"arguments": arguments, "exit": code, "printed": printed,
                                  "seconds": time.perf_counter() - started}
    saved["runs"] = save_runs(args.db, {stored_name(dataset) for dataset in DATASETS}) if args.write else []
    if args.write:
        RESULT.write_text(json.dumps(saved, indent=1) + "\n", encoding="utf-8")
        write_section(SECTION, section(saved), PAGE)
        print(f"wrote {RESULT} and the {SECTION} section of {PAGE}")
    return max(outcome["exit"] for outcome in saved["tables"].values())
