"""The ``hopkit`` command line: ingest, index, run, judge, evaluate, report, compare, claims, quickstart."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Sequence

from hopkit import __version__
from hopkit.cli_claims import add_claims_arguments
from hopkit.cli_executor import add_executor_arguments
from hopkit.cli_index import add_index_arguments
from hopkit.cli_logging import configure_console
from hopkit.config import named_configs
from hopkit.methods.registry import method_names
from hopkit.errors import HopkitError

log = logging.getLogger("hopkit")


def _llm_help(default: str | None = None) -> str:
    names = ", ".join(named_configs("llm"))
    first = f"LLM config name (default {default})" if default else "LLM config name"
    return (f"{first}: {names} (docs/models.md says where each model comes from), or a GGUF file on the "
            "Hugging Face Hub: hf://OWNER/NAME/FILE.gguf")


def _retrieval_help() -> str:
    return (f"retrieval config name: {', '.join(named_configs('retrieval'))} (docs/configs.md, \"Shipped "
            "retrieval configs\"), or one of configs/retrieval/ in the current folder")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hopkit", description="Multi-hop retrieval-augmented QA toolkit.")
    parser.add_argument("--version", action="version", version=f"hopkit {__version__}")
    parser.add_argument("--db", help="database URL (default: $HOPKIT_DB_URL or sqlite file in $HOPKIT_HOME)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="log debug messages, and each failed question on the console (else in the run's log file)")
    commands = parser.add_subparsers(dest="command", required=True)

    ingest = commands.add_parser("ingest", help="load a dataset, pool its corpus, store both")
    ingest.add_argument("dataset", help="hotpotqa, 2wikimultihopqa, musique, iirc, strategyqa, ircot or jsonl (the "
                                        "format), or sample (the small fictional dataset bundled with hopkit)")
    ingest.add_argument("path", nargs="?", help="the dataset file (default: download the official one)")
    ingest.add_argument("--limit", type=int, help="keep a random sample of N questions")
    ingest.add_argument("--seed", type=int, default=0, help="seed of the random sample (default 0)")
    ingest.add_argument("--name", help="name in the store (default: the dataset name)")
    ingest.add_argument("--replace", action="store_true", help="replace a stored dataset of the same name")
    ingest.add_argument("--corpus", action="append", metavar="FILE_OR_FOLDER",
                        help="also make these paragraphs retrievable: JSONL lines with title and text (.gz, .bz2 "
                             "too), streamed into the store, e.g. a Wikipedia dump (repeatable)")

    add_index_arguments(commands.add_parser("index", help="build and save a retrieval index for a stored dataset"))

    run = commands.add_parser("run", help="run a pipeline config over a stored dataset (resumable)")
    run.add_argument("config", help="a shipped pipeline config by name (" + ", ".join(named_configs("pipelines"))
                                    + "), a method by name with its defaults (" + ", ".join(method_names())
                                    + "), or a YAML file with method (or _target_) and options")
    run.add_argument("--dataset", help="stored dataset (overrides the config)")
    run.add_argument("--limit", type=int, help="only the first N questions")
    run.add_argument("--top-k", type=int, help="paragraphs per retrieval (overrides the config)")
    run.add_argument("--llm", help=_llm_help() + " (overrides the config)")
    run.add_argument("--retrieval", help=_retrieval_help() + " (overrides the config; the run id follows it)")
    run.add_argument("--name", help="the run's name in tables and plots (overrides the config's name)")
    run.add_argument("--batch-size", type=int, help="questions in flight at once (overrides the config's "
                                                    "batch_size, default 10); only a model server answers several "
                                                    "at once, an in-process model answers one at a time")
    add_executor_arguments(run)
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.add_argument("--trace-prompts", action="store_true",
                     help="keep every model call's prompt in the trace (shown by the HTML report; large)")

    for name, text in (("evaluate", "score runs and print the comparison table"),
                       ("report", "score runs, print the table and write table + plots")):
        sub = commands.add_parser(name, help=text)
        sub.add_argument("runs", nargs="*", help="run names or ids (default: every run)")
        sub.add_argument("--dataset", help="only runs on this dataset")
        sub.add_argument("--out", type=Path, help="folder for the table (md, csv) and plots (png)")
        sub.add_argument("--judge", help="model id of the LLM judge whose stored verdicts fill the LLM Acc "
                                         "column (default: the only judge of the runs)")
        sub.add_argument("--wide", action="store_true", help="every column (tokens, time split, recall by "
                                                             "title and answer); the CSV always has them all")

    judge = commands.add_parser("judge", help="LLM-judged accuracy: judge the runs' answers, store the verdicts "
                                              "(resumable)")
    judge.add_argument("runs", nargs="+", help="run names or ids")
    judge.add_argument("--llm", default="qwen2.5-coder-1.5b-4k", help=_llm_help("qwen2.5-coder-1.5b-4k"))
    judge.add_argument("--quiet", action="store_true", help="no progress bar")

    compare = commands.add_parser("compare", help="compare two runs on their shared questions: difference, "
                                                  "95%% interval, paired test, questions won/lost/tied")
    compare.add_argument("run_a", metavar="RUN_A", help="run name, id or id prefix")
    compare.add_argument("run_b", metavar="RUN_B", help="the run to compare it with, on the same dataset")
    compare.add_argument("--judge", help="model id of the LLM judge whose stored verdicts give LLM Acc "
                                         "(default: the only judge of the two runs)")

    add_claims_arguments(commands.add_parser(
        "claims", help="check the claims a method's paper makes against its baselines on the stored runs, paired: "
                       "difference, interval, p and a verdict (holds, reversed, cannot tell)"))

    delete = commands.add_parser("delete", help="delete runs with their results and verdicts")
    delete.add_argument("runs", nargs="+", help="run names, ids or id prefixes (every run a name matches)")

    calibrate = commands.add_parser("calibrate", help="the threshold a method's judge needs, measured on questions "
                                                      "of a stored dataset (MIGRES's δ, SearChain's θ), resumable")
    calibrate.add_argument("method", choices=["migres", "searchain"],
                           help="migres: the relevance threshold δ (paper's 80%% rule); searchain: the reader's "
                                "confidence threshold θ (best F1, the paper's Appendix A.4.1)")
    calibrate.add_argument("--dataset", help="stored dataset whose questions (and corpus) to use (default: the only "
                                             "one); not the questions you evaluate on")
    calibrate.add_argument("--llm", default="qwen2.5-coder-1.5b-4k", help=_llm_help("qwen2.5-coder-1.5b-4k")
                           + "; the judge runs on it, as the method's LLM judge or reader does")
    calibrate.add_argument("--limit", type=int, default=20, help="questions to use (default 20)")
    calibrate.add_argument("--start", type=int, default=0, help="skip this many questions first (default 0)")
    calibrate.add_argument("--retrieval", help="retrieval config (default: bm25-migres for migres, bm25 for "
                                               "searchain)")
    calibrate.add_argument("--hits", type=int, default=50, help="migres: passages retrieved per question (MIGRES's "
                                                                "hits_per_query, default 50)")
    calibrate.add_argument("--rerank-top", type=int, help="migres: score only the best N hits, as MIGRES's "
                                                          "rerank_top")
    calibrate.add_argument("--decompositions", type=Path,
                           help="searchain: a MuSiQue JSONL file (official format); its rows' single-hop "
                                "sub-questions are the questions, their passages come from --dataset's corpus "
                                "(default: --dataset's own questions, as single-hop questions)")
    calibrate.add_argument("--apply-to", nargs="+", metavar="DATASET",
                           help="the stored datasets whose runs use the threshold found (default: --dataset's); it is "
                                "kept in the store for this --llm and retrieval, and a run of the shipped config that "
                                "does not set it takes it and says so")
    calibrate.add_argument("--quiet", action="store_true", help="no progress bar")

    sweep = commands.add_parser("sweep", help="several pipeline configs over several datasets, into one store "
                                              "(resumable: rerun the same command)")
    sweep.add_argument("configs", nargs="+", help="pipeline configs: shipped names, method names or YAML files")
    sweep.add_argument("--datasets", nargs="+", required=True, help="stored datasets")
    sweep.add_argument("--paper", action="store_true",
                       help="the names are methods' declared experiments (nor, ircot, migres, flare, alce-vanilla, "
                            "...: docs/configs.md): each runs with its paper's settings for each dataset, and is left "
                            "out, saying why, where its paper does not run it")
    sweep.add_argument("--llm", help=_llm_help() + " (overrides every config's)")
    sweep.add_argument("--retrieval", help=_retrieval_help() + " (overrides the config of every method that "
                                                                "retrieves)")
    sweep.add_argument("--limit", type=int, help="only the first N questions of each dataset")
    sweep.add_argument("--batch-size", type=int, help="questions in flight at once (with a model server)")
    add_executor_arguments(sweep)
    sweep.add_argument("--quiet", action="store_true", help="no progress bars")

    commands.add_parser("runs", help="list stored runs")
    commands.add_parser("datasets", help="list stored datasets")

    export = commands.add_parser("export", help="write runs and their results to a file another store can import")
    export.add_argument("runs", nargs="+", help="run names or ids")
    export.add_argument("--out", type=Path, required=True, help="the file (JSON Lines; gzip if it ends in .gz)")
    imported = commands.add_parser("import", help="read runs exported by `hopkit export` (resumes, never overwrites)")
    imported.add_argument("files", nargs="+", type=Path, help="files written by `hopkit export`")

    quick = commands.add_parser("quickstart", help="ingest the bundled sample, run NoR, OneR and IRCoT, compare")
    quick.add_argument("--llm", default="smollm2", help=_llm_help("smollm2, embedded"))
    quick.add_argument("--limit", type=int, help="only the first N questions")
    quick.add_argument("--out", type=Path, help="folder for the report (default $HOPKIT_HOME/reports/quickstart)")
    for sub in commands.choices.values():  # --db before or after the subcommand; SUPPRESS keeps the first one
        sub.add_argument("--db", default=argparse.SUPPRESS, help="database URL (as before the subcommand)")
    return parser


# What Ctrl-C leaves behind, per command (an ingest is one transaction; runs store each question).
_INTERRUPTED: dict[str, str] = {
    "ingest": "nothing was stored (an ingest is all-or-nothing); run the same command again",
    "index": "the index was not saved (it is written whole or not at all); run the same command again",
    "run": "finished questions are stored, rerun the same command to resume",
    "judge": "the verdicts given are stored, rerun the same command to resume",
    "quickstart": "finished questions are stored, rerun the same command to resume",
    "export": "the export file was not written (it is written whole or not at all); run the same command again",
    "import": "the results read so far are stored; run the same command again to import the rest",
    "delete": "each run is deleted whole or not at all; list what is left with `hopkit runs`",
    "calibrate": "the scores made so far are kept; run the same command again to resume",
    "sweep": "finished questions are stored, rerun the same command to resume",
}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``hopkit`` command."""
    args = _parser().parse_args(argv)
    configure_console(args.verbose)
    from hopkit import cli_commands as commands

    try:
        handler = getattr(commands, f"cmd_{args.command}")
        return int(handler(args) or 0)
    except HopkitError as exc:
        sys.stderr.write(f"hopkit: error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        left = _INTERRUPTED.get(args.command)
        sys.stderr.write(f"hopkit: interrupted{'; ' + left if left else ''}\n")
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
