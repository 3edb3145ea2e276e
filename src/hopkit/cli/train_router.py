"""``hopkit train-router``: Adaptive-RAG's classifier, trained on silver labels from stored NoR, OneR
and IRCoT runs, saved as the file an ``adaptive-rag`` config names (``classifier: PATH``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from hopkit.cli.numbers import integer, number
from hopkit.cli.store_access import reading_factory
from hopkit.errors import ConfigError
from hopkit.methods.adaptive_rag.training import train_router
from hopkit.store.store import Store


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--datasets", nargs="+", required=True, help="stored datasets whose runs give the labels")
    parser.add_argument("--out", type=Path, required=True, help="the classifier file to write (.npz)")
    parser.add_argument("--held-out", type=number, default=0.2,
                        help="share of the questions kept out of training to measure the classifier (default 0.2)")
    for method in ("nor", "oner", "ircot"):
        parser.add_argument(f"--{method}", metavar="RUN",
                            help=f"the {method} run (name or id) on each dataset (default: the one with the most "
                                 "answered questions)" + ("; read on single-hop datasets only: on a multi-hop one "
                                                          "a question NoR and OneR miss is C whatever IRCoT answers"
                                                          if method == "ircot" else ""))
    parser.add_argument("--skip-first", type=integer(minimum=0), default=0, metavar="N",
                        help="leave the first N questions of each dataset out of training: the questions a routed "
                             "run is to be measured on")


def cmd_train_router(args: argparse.Namespace) -> int:
    if args.out.is_dir():
        raise ConfigError(f"option '--out': {args.out}: is a folder, not a classifier file")
    store = Store(reading_factory(args))
    named = {method: getattr(args, method) for method in ("nor", "oner", "ircot") if getattr(args, method)}
    outcome = train_router(store, args.datasets, held_out_share=args.held_out, named=named,
                           skip_first=args.skip_first)
    for run in outcome.runs:
        print(f"labels from {run.method} run {run.name} ({run.run_id}) on {run.dataset}")
    counts = outcome.label_counts()
    answered = sum(1 for example, _ in outcome.examples if example.source == "answered")
    print(f"{len(outcome.examples)} questions: A (no retrieval) {counts['A']}, B (single-step) {counts['B']}, "
          f"C (multi-step) {counts['C']}; {answered} labelled by the simplest strategy that answered them, "
          f"{len(outcome.examples) - answered} by their dataset's kind")
    if outcome.held_out_accuracy is None:
        print("nothing held out: no accuracy measured")
    else:
        held = sum(1 for _, out in outcome.examples if out)
        print(f"classifier accuracy on the {held} held-out questions: {100 * outcome.held_out_accuracy:.1f}%")
    try:
        outcome.classifier.save(args.out)  # written whole or not at all
    except OSError as exc:
        raise ConfigError(f"option '--out': {args.out}: cannot write the classifier file "
                          f"({exc.strerror or exc})") from None
    print(f"written: {args.out} (use it with `classifier: {args.out}` in an adaptive-rag config)")
    return 0
