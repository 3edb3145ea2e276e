"""``hopkit corpus add`` and ``hopkit corpora``: corpora stored once on their own, for datasets to retrieve
from (wiki-18, DPR's psgs_w100, a corpus JSONL of one's own)."""

from __future__ import annotations

import argparse

from hopkit.cli.numbers import integer
from hopkit.cli.run import named
from hopkit.cli.store_access import existing_factory, session_factory
from hopkit.data.corpus_hub import KNOWN_CORPORA, corpus_hub_file, download_corpus
from hopkit.data.corpus_source import FORMATS, CorpusSource
from hopkit.errors import ConfigError
from hopkit.store.corpus_ingest import BATCH, add_corpus_file
from hopkit.store.named_corpora import resume_hint
from hopkit.store.store import Store
from hopkit.terminal import printable

#: What Ctrl-C (or a kill) leaves behind ``hopkit corpus add``.
INTERRUPTED = ("the passages stored so far are kept, and the corpus is marked incomplete (no run uses it); "
               "run the same command again to resume")


def add_arguments(corpus: argparse.ArgumentParser) -> None:
    actions = corpus.add_subparsers(dest="corpus_command", required=True, metavar="add")
    add = actions.add_parser("add", help="store a corpus file once, under a name, with no questions (resumable)")
    add.add_argument("name", help="the corpus's name in the store, e.g. wiki18")
    add.add_argument("path", nargs="?", help="the corpus file: FlashRAG's / Search-R1's JSONL ({id, contents}), "
                                             "DPR's psgs_w100.tsv or hopkit's {title, text} JSONL; plain, .gz "
                                             f"or .bz2 (default, for {', '.join(KNOWN_CORPORA)}: downloaded once "
                                             "from the Hugging Face Hub)")
    add.add_argument("--format", choices=FORMATS, help="the file's format (default: told from its first line)")
    add.add_argument("--batch-size", type=integer(1), default=BATCH, metavar="N",
                     help=f"passages committed at a time, the most a kill loses (default {BATCH:,})")
    add.add_argument("--replace", action="store_true",
                     help="store the file in place of a corpus of the same name (complete, or from another file)")
    add.add_argument("--quiet", action="store_true", help="no progress bar")
    add.add_argument("--db", default=argparse.SUPPRESS, help="database URL (as before the subcommand)")


def cmd_corpus(args: argparse.Namespace) -> int:
    named("corpus name", args.name)
    origin = None
    if args.path is None:  # a corpus hopkit knows by name: downloaded once from the Hub
        hub_file, fmt = corpus_hub_file(args.name)
        if args.format not in (None, fmt):
            raise ConfigError(f"--format {args.format}: {hub_file.uri} is in the {fmt} format")
        source, origin = CorpusSource.open(download_corpus(args.name), fmt), hub_file.uri
    else:
        source = CorpusSource.open(args.path, args.format)
    store = Store(session_factory(args))
    done = add_corpus_file(store.corpora, args.name, source, batch=args.batch_size, replace=args.replace,
                           progress=not args.quiet, origin=origin)
    corpus = done.corpus
    if done.added == 0 and done.resumed_from == corpus.passages and done.resumed_from and not args.replace:
        print(f"corpus {printable(corpus.name)} was already stored whole ({corpus.passages:,} passages)")
    else:
        resumed = f", resumed after {done.resumed_from:,} stored before" if done.resumed_from else ""
        print(f"stored corpus {printable(corpus.name)}: {corpus.passages:,} passages ({source.format}) from "
              f"{printable(origin or str(source.path))}{resumed}; fingerprint {corpus.fingerprint}")
    return 0


def cmd_corpora(args: argparse.Namespace) -> int:
    store = Store(existing_factory(args))
    corpora = store.corpora.list()
    if not corpora:
        print(f"no corpora stored yet in {store.location}; store one with `hopkit corpus add NAME PATH`")
        return 0
    print(f"{'name':<16} {'passages':>12}  {'state':<10} {'fingerprint':<16}  format    source")
    for corpus in corpora:
        state = "complete" if corpus.complete else "INCOMPLETE"
        print(f"{printable(corpus.name):<16} {corpus.passages:>12,}  {state:<10} {(corpus.fingerprint or '-')[:16]:<16}"
              f"  {corpus.format:<8}  {printable(corpus.source)}")
    for corpus in corpora:
        if not corpus.complete:
            print(f"{printable(corpus.name)} is INCOMPLETE: no run uses it; {resume_hint(corpus)}")
    return 0
