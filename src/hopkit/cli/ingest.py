"""``hopkit ingest``: load a dataset, pool its corpus, store both."""

from __future__ import annotations

import argparse

from hopkit.cli.numbers import integer
from hopkit.cli.run import check_new_name, named
from hopkit.cli.store_access import session_factory
from hopkit.data.corpus import pool_corpus, questions_only
from hopkit.data.corpus_file import corpus_files, read_corpus
from hopkit.data.flashrag_hub import HUB_PREFIX, is_flashrag_name
from hopkit.data.registry import NO_OWN_PARAGRAPHS, load_dataset
from hopkit.errors import ConfigError
from hopkit.records import Example
from hopkit.store.store import Store
from hopkit.terminal import printable


def add_arguments(ingest: argparse.ArgumentParser) -> None:
    ingest.add_argument("dataset", help="hotpotqa, 2wikimultihopqa, musique, iirc, strategyqa, ircot, jsonl or "
                                        "flashrag (the format), sample (the small fictional dataset bundled with "
                                        f"hopkit), or {HUB_PREFIX}NAME (a benchmark's published split from FlashRAG's "
                                        "files on the Hugging Face Hub: nq, triviaqa, popqa, hotpotqa, "
                                        "2wikimultihopqa, musique, bamboogle)")
    ingest.add_argument("path", nargs="?", help="the dataset file (default: download the official one)")
    ingest.add_argument("--split", help=f"the split of a {HUB_PREFIX}NAME dataset: dev, test or train (default dev, "
                                        "or test where the benchmark publishes no dev split)")
    ingest.add_argument("--first", type=integer(), help="keep the file's first N questions, in order (the field's "
                                                        "convention, e.g. FlashRAG's first 1,000)")
    ingest.add_argument("--limit", type=integer(), help="keep a random sample of N questions")
    ingest.add_argument("--seed", type=integer(), default=0, help="seed of the random sample (default 0)")
    ingest.add_argument("--name", help="name in the store (default: the dataset name)")
    ingest.add_argument("--replace", action="store_true", help="replace a stored dataset of the same name")
    ingest.add_argument("--corpus", action="append", metavar="FILE_OR_FOLDER",
                        help="also make these paragraphs retrievable: JSONL lines with title and text (.gz, .bz2 "
                             "too), streamed into the store, e.g. a Wikipedia dump (repeatable)")
    ingest.add_argument("--on-corpus", metavar="NAME",
                        help="retrieve from the corpus stored once under NAME (`hopkit corpus add NAME PATH`) instead "
                             "of paragraphs of the dataset's own: the questions are stored against it, their own "
                             "paragraphs not pooled and nothing copied (the open-domain setting of FlashRAG's tables)")


def cmd_ingest(args: argparse.Namespace) -> int:
    named("--name", args.name)
    if args.first is not None and args.limit is not None:
        raise ConfigError("--first and --limit: give one (--first N keeps the file's first N questions in order, "
                          "--limit N a random sample of N)")
    if args.split is not None and not is_flashrag_name(args.dataset):
        raise ConfigError(f"--split: only for a benchmark from the Hub ({HUB_PREFIX}NAME); a file given by path "
                          "is read whole")
    examples = load_dataset(args.dataset, args.path, limit=args.limit, seed=args.seed, first=args.first,
                            split=args.split)
    if args.on_corpus is not None and args.corpus:
        raise ConfigError("--on-corpus and --corpus: give one (--on-corpus NAME retrieves from a corpus stored once, "
                          "--corpus FILE copies one into this dataset)")
    name = args.name or default_name(args.dataset)
    corpus = pool_corpus(name, examples) if args.on_corpus is None else questions_only(name, examples)
    check_corpus_source(args, examples)
    more = read_corpus(corpus_files(args.corpus)) if args.corpus else ()
    store = Store(session_factory(args))
    check_new_name("dataset", "--name" if args.name else "dataset", corpus.name, store.datasets(),
                   also="; they are two datasets")
    made_stale = store.add_corpus(corpus, replace=args.replace, more=more, on_corpus=args.on_corpus)
    gold = sum(len(q.gold_paragraph_ids) for q in corpus.queries)
    if args.on_corpus is not None:
        print(f"ingested {printable(corpus.name)}: {len(corpus.queries)} questions on corpus "
              f"{printable(args.on_corpus)} ({len(store.corpus(corpus.name)):,} passages, read from it, not copied)")
    added = f" and {len(store.corpus(corpus.name)) - len(corpus.paragraphs)} from --corpus" if args.corpus else ""
    if args.on_corpus is None:
        print(f"ingested {printable(corpus.name)}: {len(corpus.queries)} questions, {len(corpus.paragraphs)} "
              f"paragraphs in the pooled corpus{added}, {gold} gold paragraph links")
    if made_stale:
        print(f"{made_stale} earlier run(s) on {corpus.name} ran on the replaced corpus and are now stale: "
              "evaluate and report skip them (`hopkit runs` marks them); rerun their configs to score "
              "them on the new corpus")
    return 0


def default_name(dataset: str) -> str:
    """The stored name when ``--name`` is left out: the dataset's, NAME for ``flashrag/NAME``."""
    return dataset[len(HUB_PREFIX):] if is_flashrag_name(dataset) else dataset


def check_corpus_source(args: argparse.Namespace, examples: list[Example]) -> None:
    """Questions that carry no paragraphs (FlashRAG's) need a corpus from elsewhere: refused without one.

    That is ``--corpus FILE``, copied into the dataset, or a corpus stored once and named
    (``--on-corpus NAME``), read from where it is.

    Raises:
        ConfigError: no paragraph among the questions and no corpus given.
    """
    fmt = "flashrag" if is_flashrag_name(args.dataset) else args.dataset
    if (fmt not in NO_OWN_PARAGRAPHS or args.corpus or args.on_corpus is not None
            or any(example.context for example in examples)):
        return
    raise ConfigError(f"{args.dataset}: its questions carry no paragraphs, so there would be nothing to retrieve; "
                      "give the paragraphs to retrieve from with --on-corpus NAME (a corpus stored once with "
                      "`hopkit corpus add NAME PATH`) or --corpus FILE_OR_FOLDER (JSONL lines with title and text, "
                      ".gz or .bz2 too)")
