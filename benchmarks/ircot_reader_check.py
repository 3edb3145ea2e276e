"""Reader check: re-read the paragraphs of IRCoT with the CoT reader (qa_bench's ircot-cot) with OneR's direct reader.

IRCoT's retrieval does not depend on its reader, so reading the stored paragraphs of
an IRCoT run with another reader isolates the reader's share of the QA score.

    HOPKIT_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.ircot_reader_check --dataset hotpotqa --limit 20
"""

from __future__ import annotations

import argparse

from tqdm import tqdm

from benchmarks.bench_store import add_store_options, open_bench_store
from benchmarks.qa_bench import pipeline_for
from hopkit.config import load_llm
from hopkit.evaluation.metrics import exact_match, f1
from hopkit.methods.reader import Reader, ReaderConfig
from hopkit.pipelines.generation.config import DemonstrationSpec, load_demonstrations


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="hotpotqa")
    parser.add_argument("--limit", type=int, default=20)
    add_store_options(parser)
    args = parser.parse_args()
    session_factory, store = open_bench_store(args)
    llm = load_llm(args.llm)
    run_id = pipeline_for("ircot-cot", args.dataset, session_factory, llm).run_spec().run_id
    run = next(r for r in store.runs(args.dataset) if r.run_id == run_id)
    queries = {q.id: q for q in store.queries(args.dataset, limit=args.limit)}
    results = [r for r in store.results(run.run_id) if r.query_id in queries and r.error is None]
    demos = load_demonstrations(DemonstrationSpec(args.dataset, 2, "codex"), "direct", with_context=True)
    reader = Reader(llm, ReaderConfig(mode="direct", max_tokens=32), demos)
    stored_em = stored_f1 = direct_em = direct_f1 = 0.0
    for result in tqdm(results, desc="re-reading"):
        query = queries[result.query_id]
        paragraphs = store.paragraphs_by_ids(args.dataset, list(result.chunk_ids))
        answer = reader.read(query.text, paragraphs).answer
        stored_em += exact_match(result.prediction, query.answers)
        stored_f1 += f1(result.prediction, query.answers)
        direct_em += exact_match(answer, query.answers)
        direct_f1 += f1(answer, query.answers)
    n = len(results)
    print(f"{args.dataset}, {n} questions of IRCoT run {run.run_id}")
    print(f"  IRCoT, CoT reader (stored):            EM {100 * stored_em / n:.1f}  F1 {100 * stored_f1 / n:.1f}")
    print(f"  IRCoT paragraphs, OneR's direct reader: EM {100 * direct_em / n:.1f}  F1 {100 * direct_f1 / n:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
