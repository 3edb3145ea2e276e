"""``hopkit calibrate migres``: the δ a MIGRES relevance judge needs, on questions of a stored dataset."""

from __future__ import annotations

import argparse

from hopkit.calibration import COVERAGE, ScoreFile, calibrate_delta, score_file_name
from hopkit.config import load_llm, load_named
from hopkit.environment import hopkit_home
from hopkit.errors import ConfigError
from hopkit.judges.factory import relevance_judge
from hopkit.methods.migres.method import MIGRESConfig
from hopkit.pipelines.retrieval.base import RetrievalPipeline, resolve_dataset
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store
from hopkit.terminal import printable


def cmd_calibrate(args: argparse.Namespace) -> int:
    if args.limit < 1 or args.start < 0 or args.hits < 1 or (args.rerank_top is not None and args.rerank_top < 1):
        raise ConfigError("calibrate: --limit, --hits and --rerank-top must be at least 1, --start at least 0")
    session_factory = DBConnection.from_config(args.db).get_session_factory()
    store = Store(session_factory)
    dataset = resolve_dataset(store, args.dataset)
    queries = store.queries(dataset, limit=args.start + args.limit)[args.start:]
    if not queries:
        raise ConfigError(f"dataset {dataset!r} has no question past the first {args.start} (--start)")
    retrieval = load_named("retrieval", args.retrieval, session_factory=session_factory)
    if not isinstance(retrieval, RetrievalPipeline):
        raise ConfigError(f"retrieval config {args.retrieval!r} does not build a retrieval pipeline")
    judge = relevance_judge("llm", llm=load_llm(args.llm), option="reranker")
    path = hopkit_home() / "calibration" / score_file_name("migres-delta", judge.judge_id, dataset, args.retrieval,
                                                             str(args.hits))
    scores = ScoreFile(path, {"judge": judge.judge_id, "dataset": dataset, "hits": args.hits,
                              "retrieval": retrieval.spec(dataset)})
    shipped = MIGRESConfig().relevance_threshold
    result = calibrate_delta(queries, retrieval.retriever(dataset), judge, scores, hits=args.hits,
                             rerank_top=args.rerank_top, compare_with=shipped, progress=not args.quiet)
    scored = "every hit scored" if args.rerank_top is None else f"the best {args.rerank_top} scored"
    print(f"MIGRES δ for the relevance judge {printable(judge.judge_id)} on {result.questions} question(s) of "
          f"{printable(dataset)} (questions {args.start + 1}-{args.start + result.questions}; {args.retrieval}, "
          f"{args.hits} hits, {scored}):")
    print(f"  δ = {result.delta:.2f}: {100 * result.coverage:.0f}% of the questions keep a passage "
          f"({result.passages_per_question:.1f} each; the paper's rule asks for {COVERAGE:.0%}); at the shipped "
          f"δ = {shipped:g}, {100 * result.coverage_at:.0f}% would")
    print("Use it in a MIGRES config of your own (a copy of the shipped `migres`, with the same judge and LLM):")
    print(f"  relevance_threshold: {result.delta:.2f}")
    if args.rerank_top is not None:
        print(f"  rerank_top: {args.rerank_top}")
    print(f"Scores are kept in {path}: the same command resumes, and more questions (--limit) add to them. "
          "Calibrate on questions you do not evaluate on (the paper used the training set).")
    return 0
