"""The ``hopkit`` command line: one module per command (or group of commands), each with its arguments
beside its handler; :data:`COMMANDS` lists them in the order ``hopkit --help`` shows."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import Callable, Sequence

from hopkit import __version__
from hopkit.cli import (calibrate, campaign, claims, corpus, index, ingest, judge, quickstart, reproduce, results, run,
                        runs, serve_retrieval, sweep, train_router, transfer)
from hopkit.cli.console import configure_console
from hopkit.errors import HopkitError
from hopkit.full_disk import free_space, is_disk_full, with_free_space

#: What Ctrl-C leaves behind when a command stops after it stored something (runs store each question).
RESUMES = "finished questions are stored, rerun the same command to resume"


@dataclass(frozen=True)
class Command:
    """A subcommand: its name, its one-line help, its arguments, what it does and what Ctrl-C leaves."""

    name: str
    help: str
    arguments: Callable[[argparse.ArgumentParser], None] | None
    handler: Callable[[argparse.Namespace], int]
    interrupted: str = ""


COMMANDS: tuple[Command, ...] = (
    Command("ingest", "load a dataset, pool its corpus, store both", ingest.add_arguments, ingest.cmd_ingest,
            "nothing was stored (an ingest is all-or-nothing); run the same command again"),
    Command("corpus", "store a corpus once, under a name, for datasets to retrieve from: `corpus add NAME PATH` "
                      "(wiki-18, DPR's TSV, hopkit JSONL; resumable)", corpus.add_arguments, corpus.cmd_corpus,
            corpus.INTERRUPTED),
    Command("corpora", "list the stored corpora (passages, complete or not, fingerprint, source)", None,
            corpus.cmd_corpora),
    Command("index", "build and save a retrieval index for a stored dataset", index.add_arguments, index.cmd_index,
            "the index was not saved (it is written whole or not at all); run the same command again"),
    Command("serve-retrieval", "serve a stored corpus's retriever over HTTP: Search-R1's POST /retrieve, hopkit's "
                               "own, GET /health (docs/serving.md)", serve_retrieval.add_arguments,
            serve_retrieval.cmd_serve_retrieval, serve_retrieval.INTERRUPTED),
    Command("run", "run a pipeline config over a stored dataset (resumable)", run.add_arguments, run.cmd_run,
            RESUMES),
    Command("evaluate", "score runs and print the comparison table", results.add_scoring_arguments,
            results.cmd_evaluate),
    Command("report", "score runs, print the table and write table + plots", results.add_scoring_arguments,
            results.cmd_report),
    Command("judge", "LLM-judged accuracy: judge the runs' answers, store the verdicts (resumable)",
            judge.add_arguments, judge.cmd_judge, "the verdicts given are stored, rerun the same command to resume"),
    Command("compare", "compare two runs on their shared questions: difference, 95%% interval, paired test, "
                       "questions won/lost/tied", results.add_compare_arguments, results.cmd_compare),
    Command("claims", "check the claims a method's paper makes against its baselines on the stored runs, paired: "
                      "difference, interval, p and a verdict (holds, reversed, cannot tell)",
            claims.add_arguments, claims.cmd_claims),
    Command("delete", "delete runs with their results and verdicts", runs.add_delete_arguments, runs.cmd_delete,
            "each run is deleted whole or not at all; list what is left with `hopkit runs`"),
    Command("calibrate", "the threshold a method's judge needs, measured on questions of a stored dataset "
                         "(MIGRES's δ, SearChain's θ), resumable", calibrate.add_arguments, calibrate.cmd_calibrate,
            "the scores made so far are kept; run the same command again to resume"),
    Command("sweep", "several pipeline configs over several datasets, into one store (resumable: rerun the same "
                     "command)", sweep.add_arguments, sweep.cmd_sweep, RESUMES),
    Command("reproduce", "a published table's cells (FlashRAG's...) run in its setting, hopkit's number with its "
                         "95%% interval beside the published one (resumable: rerun the same command)",
            reproduce.add_arguments, reproduce.cmd_reproduce, RESUMES),
    Command("train-router", "Adaptive-RAG's query complexity classifier, trained on silver labels from stored NoR, "
                            "OneR and IRCoT runs", train_router.add_arguments, train_router.cmd_train_router),
    Command("runs", "list stored runs", None, runs.cmd_runs),
    Command("datasets", "list stored datasets", None, runs.cmd_datasets),
    Command("export", "write runs and their results to a file another store can import",
            transfer.add_export_arguments, transfer.cmd_export,
            "the export file was not written (it is written whole or not at all); run the same command again"),
    Command("import", "read runs exported by `hopkit export` (resumes, never overwrites)",
            transfer.add_import_arguments, transfer.cmd_import,
            "the results read so far are stored; run the same command again to import the rest"),
    Command("campaign", "hopkit's own benchmark campaign behind docs/ (from a checkout): run, sections, pages, "
                        "paired, costs, calibrate-*...", campaign.add_arguments, campaign.cmd_campaign, RESUMES),
    Command("quickstart", "ingest the bundled sample, run NoR, OneR and IRCoT, compare", quickstart.add_arguments,
            quickstart.cmd_quickstart, RESUMES),
)


def parser() -> argparse.ArgumentParser:
    """The ``hopkit`` argument parser, every subcommand in it."""
    top = argparse.ArgumentParser(prog="hopkit", description="Multi-hop retrieval-augmented QA toolkit.")
    top.add_argument("--version", action="version", version=f"hopkit {__version__}")
    top.add_argument("--db", help="database URL (default: $HOPKIT_DB_URL or sqlite file in $HOPKIT_HOME)")
    top.add_argument("-v", "--verbose", action="store_true",
                     help="log debug messages, and each failed question on the console (else in the run's log file)")
    subcommands = top.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        sub = subcommands.add_parser(command.name, help=command.help)
        if command.arguments is not None:
            command.arguments(sub)
        # --db before or after the subcommand; SUPPRESS keeps the first one
        sub.add_argument("--db", default=argparse.SUPPRESS, help="database URL (as before the subcommand)")
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``hopkit`` command."""
    args = parser().parse_args(argv)
    configure_console(args.verbose)
    command = next(command for command in COMMANDS if command.name == args.command)
    try:
        return int(command.handler(args) or 0)
    except HopkitError as exc:
        sys.stderr.write(f"hopkit: error: {with_free_space(str(exc), exc)}\n")
        return 2
    except OSError as exc:  # a full disk where no command expected one: still one line, exit 2
        if not is_disk_full(exc):
            raise
        sys.stderr.write(f"hopkit: error: {free_space('what this command writes', exc)}\n")
        return 2
    except KeyboardInterrupt:
        left = command.interrupted
        sys.stderr.write(f"hopkit: interrupted{'; ' + left if left else ''}\n")
        return 130
