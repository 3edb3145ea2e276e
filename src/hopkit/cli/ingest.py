"""``hopkit ingest``: load a dataset, pool its corpus, store both."""

from __future__ import annotations

import argparse

from hopkit.cli.numbers import integer
from hopkit.cli.run import check_new_name, named
from hopkit.cli.store_access import session_factory
from hopkit.data.corpus import pool_corpus
from hopkit.data.corpus_file import corpus_files, read_corpus
from hopkit.data.registry import load_dataset
from hopkit.store.store import Store
from hopkit.terminal import printable


def add_arguments(ingest: argparse.ArgumentParser) -> None:
    ingest.add_argument("dataset", help="hotpotqa, 2wikimultihopqa, musique, iirc, strategyqa, ircot or jsonl (the "
                                        "format), or sample (the small fictional dataset bundled with hopkit)")
    ingest.add_argument("path", nargs="?", help="the dataset file (default: download the official one)")
    ingest.add_argument("--limit", type=integer(), help="keep a random sample of N questions")
    ingest.add_argument("--seed", type=integer(), default=0, help="seed of the random sample (default 0)")
    ingest.add_argument("--name", help="name in the store (default: the dataset name)")
    ingest.add_argument("--replace", action="store_true", help="replace a stored dataset of the same name")
    ingest.add_argument("--corpus", action="append", metavar="FILE_OR_FOLDER",
                        help="also make these paragraphs retrievable: JSONL lines with title and text (.gz, .bz2 "
                             "too), streamed into the store, e.g. a Wikipedia dump (repeatable)")


def cmd_ingest(args: argparse.Namespace) -> int:
    named("--name", args.name)
    examples = load_dataset(args.dataset, args.path, limit=args.limit, seed=args.seed)
    corpus = pool_corpus(args.name or args.dataset, examples)
    more = read_corpus(corpus_files(args.corpus)) if args.corpus else ()
    store = Store(session_factory(args))
    check_new_name("dataset", "--name" if args.name else "dataset", corpus.name, store.datasets(),
                   also="; they are two datasets")
    made_stale = store.add_corpus(corpus, replace=args.replace, more=more)
    gold = sum(len(q.gold_paragraph_ids) for q in corpus.queries)
    added = f" and {len(store.corpus(corpus.name)) - len(corpus.paragraphs)} from --corpus" if args.corpus else ""
    print(f"ingested {printable(corpus.name)}: {len(corpus.queries)} questions, {len(corpus.paragraphs)} paragraphs "
          f"in the pooled corpus{added}, {gold} gold paragraph links")
    if made_stale:
        print(f"{made_stale} earlier run(s) on {corpus.name} ran on the replaced corpus and are now stale: "
              "evaluate and report skip them (`hopkit runs` marks them); rerun their configs to score "
              "them on the new corpus")
    return 0
