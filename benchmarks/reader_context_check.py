"""IRCoT's direct reader in its own context against the reasoning prompt's, on the same paragraphs.

IRCoT's retrieval and reasoning do not depend on its reader, so one run of qa_bench's
``ircot-reasoning-reader`` gives both readers' inputs. Its stored answers are the
reasoning-context reader's (``reader_context="reasoning"``: the question is asked after
the reasoning prompt's cached demonstrations and paragraphs, cued with "So the answer
is:"). Re-reading each question's collected paragraphs with the paper's reader (its own
direct demonstrations, through the same method's reading step) gives the own-context answer
on exactly the same paragraphs. Both are scored per question and compared paired.

The IRCoT runs and the re-read answers are stored as they finish (the re-reads in
``.hopkit-bench/reader_context_rereads.json``): rerun the command to resume.

    HOPKIT_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.reader_context_check \\
        --datasets hotpotqa 2wikimultihopqa musique --limit 30
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from tqdm import tqdm

from hopkit.evaluation.aggregate import paired_bootstrap
from hopkit.evaluation.metrics import exact_match, f1
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import write_section  # noqa: E402  (pysbd ships a package named "benchmarks")
from qa_bench import ingest, pipeline_for  # noqa: E402
from token_floor import BENCH_HOME, Counters, load_llm  # noqa: E402

REREADS = BENCH_HOME / "reader_context_rereads.json"


def load_rereads() -> dict[str, dict[str, Any]]:
    return json.loads(REREADS.read_text(encoding="utf-8")) if REREADS.exists() else {}


def reread(store: Store, session_factory: Any, dataset: str, llm: Any, results: list[Any],
           rereads: dict[str, dict[str, Any]]) -> None:
    """The paper's reader (own demonstrations) on each result's collected paragraphs, saved as each finishes."""
    pending = [r for r in results if f"{dataset}/{r.query_id}" not in rereads]
    if not pending:
        return
    pipeline = pipeline_for("ircot", dataset, session_factory, llm)  # the own-context direct reader
    reading = pipeline.build_method(llm, retriever=_NoRetrieval(), top_k=None).reading
    queries = {q.id: q for q in store.queries(dataset)}
    for result in tqdm(pending, desc=f"re-reading {dataset} with the own-context reader"):
        paragraphs = store.paragraphs_by_ids(dataset, list(result.chunk_ids))
        before = Counters.read(llm)
        answer, _ = reading.answer(queries[result.query_id], paragraphs, ())
        spent = Counters.read(llm) - before
        rereads[f"{dataset}/{result.query_id}"] = {"answer": answer,
                                                   "evaluated": spent.batch_tokens + spent.single_tokens}
        REREADS.write_text(json.dumps(rereads, indent=1), encoding="utf-8")


class _NoRetrieval:
    """The re-read needs the method's reader only; its retriever is never called."""

    def retrieve(self, *args: Any, **kwargs: Any) -> list[Any]:
        raise AssertionError("the reader check does not retrieve")


def compare(store: Store, dataset: str, results: list[Any], rereads: dict[str, dict[str, Any]]) -> str:
    queries = {q.id: q for q in store.queries(dataset)}
    rows = {"em": ([], []), "f1": ([], [])}
    wins = losses = 0
    for result in results:
        golds = queries[result.query_id].answers
        own = rereads[f"{dataset}/{result.query_id}"]["answer"]
        for name, metric in (("em", exact_match), ("f1", f1)):
            rows[name][0].append(metric(result.prediction, golds))
            rows[name][1].append(metric(own, golds))
        wins += rows["em"][0][-1] > rows["em"][1][-1]
        losses += rows["em"][0][-1] < rows["em"][1][-1]
    cells = []
    for name in ("em", "f1"):
        shared, own = rows[name]
        difference = paired_bootstrap(shared, own)
        cells += [f"{100 * sum(own) / len(own):.1f}", f"{100 * sum(shared) / len(shared):.1f}",
                  f"{100 * difference.mean:+.1f} [{100 * difference.low:+.1f}, {100 * difference.high:+.1f}]"]
    own_reads = [rereads[f"{dataset}/{r.query_id}"] for r in results]
    evaluated = sum(r["evaluated"] for r in own_reads) / len(own_reads)
    same = sum(r.prediction == rereads[f"{dataset}/{r.query_id}"]["answer"] for r in results)
    ircot_evaluated = sum(r.prompt_tokens - r.cached_prompt_tokens for r in results) / len(results)
    return (f"| {dataset} | {len(results)} | {' | '.join(cells)} | {wins} / {losses} | {same} | "
            f"{evaluated:,.0f} | {ircot_evaluated:,.0f} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["hotpotqa", "2wikimultihopqa", "musique"])
    parser.add_argument("--limit", type=int, default=30)
    parser.add_argument("--llm", default="qwen2.5-coder-1.5b-4k")
    parser.add_argument("--report-only", action="store_true", help="compare what is stored, run nothing")
    args = parser.parse_args()
    command = ("HOPKIT_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.reader_context_check "
               + shlex.join(sys.argv[1:]))
    os.environ.setdefault("HOPKIT_HOME", str(BENCH_HOME))
    session_factory = DBConnection.from_config().get_session_factory()
    store = Store(session_factory)
    llm = load_llm(args.llm, None)  # also names the runs
    rereads = load_rereads()
    rows = []
    for dataset in args.datasets:
        ingest(store, dataset)
        pipeline = pipeline_for("ircot-reasoning-reader", dataset, session_factory, llm)
        run_id = pipeline.run_spec().run_id if args.report_only else pipeline.run(limit=args.limit)["run_id"]
        limited = {q.id for q in store.queries(dataset, limit=args.limit)}
        results = [r for r in store.results(run_id) if r.query_id in limited and r.error is None]
        if not args.report_only:
            reread(store, session_factory, dataset, llm, results, rereads)
        results = [r for r in results if f"{dataset}/{r.query_id}" in rereads]
        if results:
            rows.append(compare(store, dataset, results, rereads))
    write_section("reader-context", "\n\n".join([
        "## IRCoT's reader: its own context or the reasoning prompt's (paired, same paragraphs)",
        f"Command: `{command}`",
        "One IRCoT run per dataset (qa_bench's `ircot-reasoning-reader`: the authors' demonstrations, K=4, at most "
        "8 steps, budget 15, Qwen2.5-Coder-1.5B, 4k context). *Reasoning context*: its stored answers; the direct "
        "reader's question follows the last reasoning prompt's demonstrations and paragraphs, which llama.cpp has "
        "cached, cued with \"So the answer is:\". *Own context*: the paper's reader (its own direct "
        "demonstrations, then every collected paragraph again) re-reading the same paragraphs. Differences are "
        "reasoning − own with a 95% paired bootstrap interval; *wins / losses*: questions only the "
        "reasoning-context reader / only the own-context reader gets right (EM). *Own reader: evaluated*: "
        "tokens llama.cpp evaluated per question for the re-read, which the reasoning-context reader saves; "
        "*IRCoT evaluated*: prompt tokens the whole reasoning-context run evaluated per question (hopkit's "
        "count). Token counts, not seconds: these runs shared the machine with other work.",
        "| dataset | n | EM own | EM reasoning | EM difference | F1 own | F1 reasoning | F1 difference | "
        "wins / losses | same answer | own reader: evaluated tok/q | IRCoT evaluated tok/q (reasoning "
        "context) |\n|---|---:|---:|---:|---|---:|---:|---|---|---:|---:|---:|\n" + "\n".join(rows),
    ]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
