"""IRCoT's readers on the same paragraphs: its own context, the reasoning prompt's, and the chat format.

IRCoT's retrieval and reasoning do not depend on its reader, so one run of qa_bench's
``ircot-reasoning-reader`` gives both readers' inputs. Its stored answers are the
reasoning-context reader's (``reader_context="reasoning"``: the question is asked after
the reasoning prompt's cached demonstrations and paragraphs, cued with "So the answer
is:"). Re-reading each question's collected paragraphs with the paper's reader (its own
direct demonstrations, through the same method's reading step) gives the own-context answer
on exactly the same paragraphs. A third reader re-reads them in the instruct model's chat
format (hopkit's Reader with ``format="chat"``, zero-shot: a system instruction, then the
paragraphs and the question as the user's turn, through the GGUF's own chat template).
All are scored per question and compared paired against the paper's reader.

The IRCoT runs and the re-read answers are stored as they finish (the runs in the
bench store and, when each stops, in ``benchmarks/results/runs/``; the re-reads in
``benchmarks/results/reader_context_rereads.json`` and ``reader_chat_rereads.json``):
rerun the command to resume, on this machine or from a fresh clone.

    HOPKIT_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.reader_context_check \\
        --datasets hotpotqa 2wikimultihopqa musique --limit 30
"""

from __future__ import annotations

import argparse
from typing import Any, Callable, Sequence

from tqdm import tqdm

from hopkit.campaign.environment import NOTEBOOK_MD
from hopkit.campaign.page_sections import command_line, write_section
from hopkit.campaign.bench_store import load_llm, open_bench_store, stored_runs_parser
from hopkit.campaign.qa_bench import ingest, pipeline_for, run_and_save
from hopkit.campaign.probes import Counters
from hopkit.campaign.rereads import REREADS, Rereads, load_rereads, save_rereads
from hopkit.evaluation.aggregate import paired_bootstrap
from hopkit.evaluation.metrics import exact_match, f1
from hopkit.methods.context import with_main_passage
from hopkit.methods.reader import Reader, ReaderConfig
from hopkit.records import Query
from hopkit.store.store import Store

DESCRIPTIONS = {"own": "the own-context reader", "chat": "the zero-shot chat reader"}


def reader_for(variant: str, dataset: str, session_factory: Any, llm: Any) -> Callable[[Query, list[Any]], str]:
    """The re-reading function of ``variant``: the paper's own-context reader, or the chat reader."""
    if variant == "own":
        pipeline = pipeline_for("ircot", dataset, session_factory, llm)  # the own-context direct reader
        reading = pipeline.build_method(llm, retriever=_NoRetrieval(), top_k=None).reading
        return lambda query, paragraphs: reading.answer(query, paragraphs, ())[0]
    chat = Reader(llm, ReaderConfig(mode="direct", max_tokens=32, format="chat"))
    return lambda query, paragraphs: chat.read(query.text, with_main_passage(query, paragraphs)).answer


def reread(variant: str, store: Store, session_factory: Any, dataset: str, llm: Any, results: list[Any],
           rereads: Rereads) -> None:
    """``variant``'s reader on each result's collected paragraphs, saved as each finishes."""
    pending = [r for r in results if f"{dataset}/{r.query_id}" not in rereads]
    if not pending:
        return
    read = reader_for(variant, dataset, session_factory, llm)
    queries = {q.id: q for q in store.queries(dataset)}
    for result in tqdm(pending, desc=f"re-reading {dataset} with {DESCRIPTIONS[variant]}"):
        paragraphs = store.paragraphs_by_ids(dataset, list(result.chunk_ids))
        before = Counters.read(llm)
        answer = read(queries[result.query_id], paragraphs)
        spent = Counters.read(llm) - before
        rereads[f"{dataset}/{result.query_id}"] = {"answer": answer,
                                                   "evaluated": spent.batch_tokens + spent.single_tokens}
        save_rereads(variant, rereads)


class _NoRetrieval:
    """The re-read needs the method's reader only; its retriever is never called."""

    def retrieve(self, *args: Any, **kwargs: Any) -> list[Any]:
        raise AssertionError("the reader check does not retrieve")


def paired_cells(shared: list[float], own: list[float]) -> str:
    difference = paired_bootstrap(shared, own)
    return f"{100 * difference.mean:+.1f} [{100 * difference.low:+.1f}, {100 * difference.high:+.1f}]"


def compare(store: Store, dataset: str, results: list[Any], rereads: dict[str, Rereads]) -> str:
    """One row: each reader's EM and F1, and each against the paper's (own-context) reader, paired."""
    queries = {q.id: q for q in store.queries(dataset)}
    answers = {"own": [rereads["own"][f"{dataset}/{r.query_id}"]["answer"] for r in results],
               "reasoning": [r.prediction for r in results],
               "chat": [rereads["chat"][f"{dataset}/{r.query_id}"]["answer"] for r in results]}
    golds = [queries[r.query_id].answers for r in results]
    cells = []
    for metric in (exact_match, f1):
        scored = {name: [metric(a, g) for a, g in zip(values, golds)] for name, values in answers.items()}
        cells += [f"{100 * sum(scored[name]) / len(results):.1f}" for name in ("own", "reasoning", "chat")]
        cells += [paired_cells(scored["reasoning"], scored["own"]), paired_cells(scored["chat"], scored["own"])]
    evaluated = {variant: sum(rereads[variant][f"{dataset}/{r.query_id}"]["evaluated"] for r in results)
                 / len(results) for variant in ("own", "chat")}
    ircot_evaluated = sum(r.usage.prompt_tokens - r.usage.cached_prompt_tokens for r in results) / len(results)
    return (f"| {dataset} | {len(results)} | {' | '.join(cells)} | {evaluated['own']:,.0f} | "
            f"{evaluated['chat']:,.0f} | {ircot_evaluated:,.0f} |")


def reader_table(store: Store, session_factory: Any, llm: Any, datasets: Sequence[str], limit: int) -> str:
    """The section's table from the stored ``ircot-reasoning-reader`` runs and the saved re-reads
    (``llm`` names the runs); a question is compared once every reader has read it."""
    rereads = {variant: load_rereads(variant) for variant in REREADS}
    rows = []
    for dataset in datasets:
        ingest(store, dataset)
        run_id = pipeline_for("ircot-reasoning-reader", dataset, session_factory, llm).run_spec().run_id
        limited = {q.id for q in store.queries(dataset, limit=limit)}
        results = [r for r in store.results(run_id) if r.query_id in limited and r.error is None
                   and all(f"{dataset}/{r.query_id}" in done for done in rereads.values())]
        if results:
            rows.append(compare(store, dataset, results, rereads))
    return ("| dataset | n | EM own | EM reasoning | EM chat | EM reasoning − own | EM chat − own | F1 own | "
            "F1 reasoning | F1 chat | F1 reasoning − own | F1 chat − own | own re-read tok/q | chat re-read tok/q | "
            "IRCoT evaluated tok/q |\n|---|---:|---:|---:|---:|---|---|---:|---:|---:|---|---|---:|---:|---:|\n"
            + "\n".join(rows))


def command_parser() -> argparse.ArgumentParser:
    """The command line (tests/benchmarks/test_paired_sections.py reads the section's command with it)."""
    parser = stored_runs_parser(__doc__)
    parser.add_argument("--report-only", action="store_true", help="compare what is stored, run nothing")
    return parser


def main() -> int:
    args = command_parser().parse_args()
    command = command_line()
    session_factory, store = open_bench_store(args)
    llm = load_llm(args.llm, None)  # also names the runs
    if not args.report_only:
        rereads = {variant: load_rereads(variant) for variant in REREADS}
        for dataset in args.datasets:
            ingest(store, dataset)
            run_id = run_and_save(store, pipeline_for("ircot-reasoning-reader", dataset, session_factory, llm),
                                  args.limit)
            limited = {q.id for q in store.queries(dataset, limit=args.limit)}
            results = [r for r in store.results(run_id) if r.query_id in limited and r.error is None]
            for variant in REREADS:
                reread(variant, store, session_factory, dataset, llm, results, rereads[variant])
    write_section("reader-context", "\n\n".join([
        "## IRCoT's reader: its own context, the reasoning prompt's, or the chat format (paired, same paragraphs)",
        f"Command: `{command}`",
        "One IRCoT run per dataset (qa_bench's `ircot-reasoning-reader`: the authors' demonstrations, K=4, at most "
        "8 steps, budget 15, Qwen2.5-Coder-1.5B, 4k context); each question's collected paragraphs are then read "
        "by three direct readers. *Own*: the paper's reader, its own direct demonstrations, then every collected "
        "paragraph again. *Reasoning*: IRCoT's stored answers; the question follows the last reasoning prompt's "
        "demonstrations and paragraphs, which llama.cpp has cached, cued with \"So the answer is:\". *Chat*: "
        "zero-shot, a system instruction, then the paragraphs and the question as the user's turn through the "
        "GGUF's own chat template. Differences are against the paper's reader (variant − own), with a 95% paired "
        "bootstrap interval. *Evaluated*: tokens llama.cpp evaluated per question for each re-read (the "
        "reasoning-context reader needs none), and prompt tokens the whole IRCoT run evaluated per question "
        "(hopkit's count). Token counts, not seconds: these runs shared the machine with other work.",
        reader_table(store, session_factory, llm, args.datasets, args.limit),
    ]), NOTEBOOK_MD)
    return 0

if __name__ == "__main__":
    raise SystemExit(main())
