"""``hopkit calibrate migres|searchain``: the threshold a method's judge needs, on questions of a stored dataset.

- ``migres``: the relevance threshold δ of MIGRES's Knowledge Filter (the paper's 80% rule);
- ``searchain``: the confidence threshold θ of SearChain's reader (best F1, Appendix A.4.1).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from hopkit.calibration.migres import COVERAGE, calibrate_delta
from hopkit.calibration.scores import ScoreFile, score_file_name
from hopkit.calibration.searchain import PAPER_THETA, ThetaPoint, calibrate_theta, decomposition_pairs, question_pairs
from hopkit.cli.help_texts import llm_help
from hopkit.cli.numbers import integer
from hopkit.cli.store_access import existing_factory
from hopkit.config import load_llm, load_named
from hopkit.environment import hopkit_home
from hopkit.errors import ConfigError
from hopkit.judges.factory import answer_judge, relevance_judge
from hopkit.methods.migres.method import MIGRESConfig
from hopkit.methods.searchain.method import SearChainConfig
from hopkit.pipelines.retrieval.base import RetrievalPipeline, resolve_dataset
from hopkit.records import Query
from hopkit.store.store import Store
from hopkit.store.thresholds import ThresholdStore
from hopkit.terminal import printable

#: Each method's default retrieval config: the one its shipped config retrieves with.
DEFAULT_RETRIEVAL = {"migres": "bm25-migres", "searchain": "bm25"}


def add_arguments(calibrate: argparse.ArgumentParser) -> None:
    calibrate.add_argument("method", choices=["migres", "searchain"],
                           help="migres: the relevance threshold δ (paper's 80%% rule); searchain: the reader's "
                                "confidence threshold θ (best F1, the paper's Appendix A.4.1)")
    calibrate.add_argument("--dataset", help="stored dataset whose questions (and corpus) to use (default: the only "
                                             "one); not the questions you evaluate on")
    calibrate.add_argument("--llm", default="qwen2.5-coder-1.5b-4k", help=llm_help("qwen2.5-coder-1.5b-4k")
                           + "; the judge runs on it, as the method's LLM judge or reader does")
    calibrate.add_argument("--limit", type=integer(), default=20, help="questions to use (default 20)")
    calibrate.add_argument("--start", type=integer(), default=0, help="skip this many questions first (default 0)")
    calibrate.add_argument("--retrieval", help="retrieval config (default: bm25-migres for migres, bm25 for "
                                               "searchain)")
    calibrate.add_argument("--hits", type=integer(), default=50,
                           help="migres: passages retrieved per question (MIGRES's hits_per_query, default 50)")
    calibrate.add_argument("--rerank-top", type=integer(), help="migres: score only the best N hits, as MIGRES's "
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


def cmd_calibrate(args: argparse.Namespace) -> int:
    if args.limit < 1 or args.start < 0 or args.hits < 1 or (args.rerank_top is not None and args.rerank_top < 1):
        raise ConfigError("calibrate: --limit, --hits and --rerank-top must be at least 1, --start at least 0")
    if args.method == "migres" and args.decompositions is not None:
        raise ConfigError("calibrate migres: --decompositions is for searchain (MIGRES scores the questions' own "
                          "passages)")
    args.retrieval = args.retrieval or DEFAULT_RETRIEVAL[args.method]
    session_factory = existing_factory(args)
    store = Store(session_factory)
    dataset = resolve_dataset(store, args.dataset)
    for target in args.apply_to or []:
        resolve_dataset(store, target)  # a stored dataset, or the error names those there are
    retrieval = load_named("retrieval", args.retrieval, session_factory=session_factory)
    if not isinstance(retrieval, RetrievalPipeline):
        raise ConfigError(f"retrieval config {args.retrieval!r} does not build a retrieval pipeline")
    if args.method == "searchain":
        return _calibrate_theta(args, store, dataset, retrieval, ThresholdStore(session_factory))
    return _calibrate_delta(args, store, dataset, retrieval, ThresholdStore(session_factory))


def _questions(args: argparse.Namespace, store: Store, dataset: str) -> list[Query]:
    queries = store.queries(dataset, limit=args.start + args.limit)[args.start:]
    if not queries:
        raise ConfigError(f"dataset {dataset!r} has no question past the first {args.start} (--start)")
    return queries


def _score_path(*parts: str) -> Path:
    return hopkit_home() / "calibration" / score_file_name(*parts)


def _calibrate_delta(args: argparse.Namespace, store: Store, dataset: str, retrieval: RetrievalPipeline,
                     thresholds: ThresholdStore) -> int:
    queries = _questions(args, store, dataset)
    judge = relevance_judge("llm", llm=load_llm(args.llm), option="reranker")
    path = _score_path("migres-delta", judge.judge_id, dataset, args.retrieval, str(args.hits))
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
    options = {"relevance_threshold": round(result.delta, 4),
               **({"rerank_top": args.rerank_top} if args.rerank_top is not None else {})}
    _store(args, thresholds, "migres_relevance", dataset, options, judge.judge_id,
           f"largest δ at which {COVERAGE:.0%} of {result.questions} questions keep a passage (Table 11's caption)")
    _print_resume_note(path)
    return 0


def _calibrate_theta(args: argparse.Namespace, store: Store, dataset: str, retrieval: RetrievalPipeline,
                     thresholds: ThresholdStore) -> int:
    if args.decompositions is not None:
        pairs = decomposition_pairs(args.decompositions, start=args.start, limit=args.limit)
        source = f"sub-questions of rows {args.start + 1}-{args.start + args.limit} of {args.decompositions.name}"
    else:
        pairs = question_pairs(_questions(args, store, dataset))
        source = f"questions {args.start + 1}-{args.start + args.limit} of {dataset}"
    reader = answer_judge(SearChainConfig().reader, llm=load_llm(args.llm), option="reader")
    path = _score_path("searchain-theta", reader.judge_id, dataset, args.retrieval,
                       "decompositions" if args.decompositions is not None else "questions")
    scores = ScoreFile(path, {"reader": reader.judge_id, "dataset": dataset, "retrieval": retrieval.spec(dataset),
                              "pairs": "decompositions" if args.decompositions is not None else "questions"})
    result = calibrate_theta(pairs, retrieval.retriever(dataset), reader, scores, progress=not args.quiet)
    print(f"SearChain θ for the reader {printable(reader.judge_id)} on {result.pairs} (question, top-1 passage) "
          f"pair(s), {printable(source)}, passages from {printable(dataset)} ({args.retrieval}); "
          f"{result.positives} of them have a passage containing a gold answer:")
    print(f"  θ = {result.chosen.theta:.1f}: {_point(result.chosen)} (the best F1 of \"confidence > θ\" over the "
          "reader's scale, in steps of 0.1)")
    if result.from_one is not None and result.from_one.theta != result.chosen.theta:
        print(f"  the best from 1.0 upward (the paper's grid): θ = {result.from_one.theta:.1f}, "
              f"{_point(result.from_one)}")
    print(f"  at the shipped θ = {PAPER_THETA:g} (the paper's, for its DPR reader): {_point(result.at_paper)}")
    _store(args, thresholds, "searchain_confidence", dataset, {"confidence_threshold": round(result.chosen.theta, 1)},
           reader.judge_id, f"best F1 of confidence > θ on {result.pairs} pairs (Appendix A.4.1)")
    _print_resume_note(path)
    return 0


def _store(args: argparse.Namespace, thresholds: ThresholdStore, kind: str, dataset: str, options: dict[str, Any], judge: str,
           rule: str) -> None:
    """Keep the threshold for the runs on ``--apply-to`` (else ``dataset``) with this LLM and retrieval, and say
    how they use it."""
    targets = args.apply_to or [dataset]
    for target in targets:
        thresholds.save(kind, args.llm, args.retrieval, target, next(iter(options.values())), options=options,
                        judge=judge, rule=f"{rule}, on {dataset}")
    shown = "\n".join(f"  {name}: {value}" for name, value in options.items())
    print(f"Stored for runs on {printable(', '.join(targets))} with --llm {printable(args.llm)} and retrieval "
          f"{printable(args.retrieval)}: the shipped `{args.method}` config uses it there unless its config sets "
          f"it (the run says so); a config of your own takes it as\n{shown}")


def _point(point: ThetaPoint) -> str:
    return f"F1 {100 * point.f1:.1f} (precision {100 * point.precision:.1f}, recall {100 * point.recall:.1f})"


def _print_resume_note(path: Path) -> None:
    print(f"Scores are kept in {path}: the same command resumes, and more questions (--limit) add to them. "
          "Calibrate on questions you do not evaluate on (the papers used other data).")
