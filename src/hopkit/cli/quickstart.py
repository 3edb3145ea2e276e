"""``hopkit quickstart``: ingest the bundled sample, run NoR, OneR and IRCoT, compare."""

from __future__ import annotations

import argparse
from pathlib import Path

from hopkit.cli.console import log_kept, run_log
from hopkit.cli.help_texts import llm_help
from hopkit.cli.numbers import integer
from hopkit.cli.results import write_run_report
from hopkit.cli.store_access import session_factory
from hopkit.environment import hopkit_home
from hopkit.report.table import compact, comparison_table, to_text
from hopkit.store.store import Store


def add_arguments(quick: argparse.ArgumentParser) -> None:
    quick.add_argument("--llm", default="smollm2", help=llm_help("smollm2, embedded"))
    quick.add_argument("--limit", type=integer(minimum=0), help="only the first N questions")
    quick.add_argument("--out", type=Path, help="folder for the report (default $HOPKIT_HOME/reports/quickstart)")


def cmd_quickstart(args: argparse.Namespace) -> int:
    from hopkit.quickstart.notes import reading_notes
    from hopkit.quickstart.run import run_quickstart

    out = args.out or hopkit_home() / "reports" / "quickstart"
    factory = session_factory(args)
    with run_log("quickstart") as log_file:
        summaries = run_quickstart(factory, llm=args.llm, limit=args.limit)
    print(to_text(compact(comparison_table(summaries))))
    failed = sum(summary.n_failed for summary in summaries)
    if failed and log_kept(log_file):
        print(f"{failed} question(s) failed (the Failed column); each one, and why, is in {log_file}")
    print("\n".join(["", *reading_notes(summaries, args.llm), ""]))
    write_run_report(summaries, out, Store(factory))
    return 0
