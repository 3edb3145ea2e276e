"""The model's time: tokens llama.cpp evaluated per question, the raw rates, and the token floor.

For each method run (NoR, OneR, IRCoT on the first N questions of one sample, BM25 over
its pooled corpus, one fresh store per variant), it reads llama.cpp's own performance
counters (``llama_perf_context``) before and after the run:

* ``batch`` tokens: prompt tokens evaluated in batches of more than one (llama.cpp's
  ``n_p_eval``), and ``single`` evaluations: one token at a time (``n_eval``: each
  generated token, and the last prompt token of a call whose prefix was cached);
* the raw prefill rate (batch tokens/s) and decode rate (single evaluations/s),
  measured in the same process on the same model before the runs;
* the token floor: batch ÷ prefill rate + single ÷ decode rate, beside the measured
  seconds (the runner's wall time per question), their ratio, and the time spent
  outside llama.cpp's evaluation (Python, sampling, KV snapshots and restores,
  streaming, tokenising, retrieval).

For IRCoT it also reports the minimum a question needs: its collected paragraphs shown
once, the question and its own CoT sentences, in model tokens.

Every variant's records are kept in ``benchmarks/results/token_floor.json`` (committed,
so a fresh clone still has them) and the section of docs/benchmarks.md shows them all, so levers can be compared (run one variant, change
a lever, run another label). A variant's answers are compared question by question with
the first variant's (greedy decoding should give the same text).

    HOPKIT_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.token_floor \\
        --dataset musique --limit 20 --methods nor oner ircot --label threads-2 --threads 2
"""

from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from hopkit.campaign.page_sections import command_line, write_section
from hopkit.campaign.bench_store import load_llm
from hopkit.campaign.environment import LLM_NAME, RESULTS, data_dir, use_bench_home
from hopkit.campaign.probes import RATE_PROMPT_FILE, Counters, fresh_store, record_calls
from hopkit.campaign.qa_bench import pipeline_for
from hopkit.llm.llama_cpp import LlamaCppLLM
from hopkit.prompts.layout import render_paragraphs
from hopkit.records import Paragraph
from hopkit.scoring_runs import score_run
from hopkit.store.store import Store

RECORDS = RESULTS / "token_floor.json"


@dataclass(frozen=True)
class Rates:
    """The raw speed of the model in this process, from llama.cpp's counters.

    ``prefill_tokens_per_s`` (a cold 1,500-token prompt) and ``decode_tokens_per_s`` (128
    tokens after a short prompt) are the plain rates. A token's cost grows with its depth
    in the context (attention), so the depth-aware floor uses fitted costs instead: a
    prompt token at depth d costs ``prefill_a + prefill_b * d`` seconds, a decoded token
    ``decode_a + decode_b * d``.
    """

    prefill_tokens_per_s: float
    decode_tokens_per_s: float
    prefill_a: float
    prefill_b: float
    decode_a: float
    decode_b: float

    def prefill_seconds(self, start: int, end: int) -> float:
        """Evaluating the prompt tokens at depths ``start`` .. ``end - 1``."""
        return self.prefill_a * (end - start) + self.prefill_b * (end * end - start * start) / 2

    def decode_seconds(self, depth: int, count: int) -> float:
        """Decoding ``count`` tokens after a context of ``depth`` tokens."""
        return self.decode_a * count + self.decode_b * (depth * count + count * count / 2)


def _fit_line(points: list[tuple[float, float]]) -> tuple[float, float]:
    """Least-squares ``y = a + b x``."""
    n = len(points)
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    b = sum((x - mean_x) * (y - mean_y) for x, y in points) / spread if spread else 0.0
    return mean_y - b * mean_x, b


@dataclass(frozen=True)
class RunRecord:
    label: str
    method: str
    dataset: str
    questions: int
    threads: int
    seconds_per_q: float
    llm_calls_per_q: float
    prompt_tokens_per_q: float
    estimated_evaluated_per_q: float
    batch_tokens_per_q: float
    single_evals_per_q: float
    completion_tokens_per_q: float
    llama_seconds_per_q: float
    floor_seconds_per_q: float
    depth_floor_seconds_per_q: float
    minimum_tokens_per_q: float | None
    prefill_tokens_per_s: float
    decode_tokens_per_s: float
    em: float
    f1: float
    answers: dict[str, str]
    command: str = ""

    @property
    def ratio(self) -> float:
        return self.seconds_per_q / self.floor_seconds_per_q if self.floor_seconds_per_q else 0.0

    @property
    def depth_ratio(self) -> float:
        return self.seconds_per_q / self.depth_floor_seconds_per_q if self.depth_floor_seconds_per_q else 0.0


def _cold(llm: LlamaCppLLM, prompt: str, max_tokens: int) -> Counters:
    llm.reset()
    before = Counters.read(llm)
    llm.complete(prompt, max_tokens=max_tokens, stop=("<|im_end|>",))
    return Counters.read(llm) - before


def measure_rates(llm: LlamaCppLLM, data_dir: Path, repeats: int = 2) -> Rates:
    """Raw prefill and decode costs from llama.cpp's counters, the best of ``repeats``.

    Prefill: cold prompts of 500, 1,500 and (when the context allows) 3,000 tokens of the
    IRCoT authors' demonstrations, evaluated with max_tokens=1; the per-token cost is
    fitted as a line in depth. Decode: 64 tokens after 100 and after 2,000 prompt tokens.
    """
    text = (data_dir / RATE_PROMPT_FILE).read_text(encoding="utf-8")
    tokens = llm._model.tokenize(text.encode("utf-8"), add_bos=False, special=False)
    room = llm.context_length - 200

    def prompt_of(count: int) -> str:
        return llm._model.detokenize(tokens[:count]).decode("utf-8", errors="ignore")

    prefill: list[tuple[float, float]] = []  # (mean depth, seconds per token)
    plain_prefill = 0.0
    for size in [n for n in (500, 1500, 3000) if n <= room]:
        spent = min((_cold(llm, prompt_of(size), 1) for _ in range(repeats)), key=lambda c: c.batch_ms)
        prefill.append((spent.batch_tokens / 2, spent.batch_ms / 1000 / spent.batch_tokens))
        if size == 1500:
            plain_prefill = spent.batch_tokens / (spent.batch_ms / 1000)
    decode: list[tuple[float, float]] = []
    for depth in [n for n in (100, 2000) if n + 100 <= room]:
        spent = min((_cold(llm, prompt_of(depth) + "\n\nWrite a long story about the sea.\n", 64)
                     for _ in range(repeats)), key=lambda c: c.single_ms / max(c.single_tokens, 1))
        decode.append((depth + spent.single_tokens / 2, spent.single_ms / 1000 / spent.single_tokens))
    llm.reset()
    prefill_a, prefill_b = _fit_line(prefill)
    decode_a, decode_b = _fit_line(decode)
    return Rates(prefill_tokens_per_s=plain_prefill or 1 / prefill[0][1], decode_tokens_per_s=1 / decode[0][1],
                 prefill_a=prefill_a, prefill_b=prefill_b, decode_a=decode_a, decode_b=decode_b)


def minimum_tokens(llm: LlamaCppLLM, store: Store, dataset: str, result: Any, question: str) -> int:
    """What one IRCoT question needs at least: its paragraphs shown once, the question, its sentences."""
    paragraphs: list[Paragraph] = store.paragraphs_by_ids(dataset, list(result.chunk_ids))
    shown = render_paragraphs(paragraphs)
    sentences = " ".join(result.trace.get("cot_sentences", []))
    return llm.count_tokens(shown) + llm.count_tokens(f"Q: {question}\nA: {sentences}")


def run_variant(args: argparse.Namespace, method: str, llm: LlamaCppLLM, rates: Rates, command: str) -> RunRecord:
    session_factory, store = fresh_store(f"floor-{args.label}-{method}", args.dataset)
    pipeline = pipeline_for(method, args.dataset, session_factory, llm)
    llm.reset()
    calls = record_calls(llm)
    before = Counters.read(llm)
    run_id = pipeline.run(limit=args.limit)["run_id"]
    spent = Counters.read(llm) - before
    depth_floor = sum(rates.prefill_seconds(c.completion.cached_prompt_tokens, c.completion.prompt_tokens)
                      + rates.decode_seconds(c.completion.prompt_tokens, c.completion.completion_tokens)
                      for c in calls)
    run = store.run(run_id)
    results = store.results(run_id)
    summary, _ = score_run(store, run)
    n = len(results)
    questions = {q.id: q.text for q in store.queries(args.dataset)}
    minimum = None
    if method.startswith("ircot"):
        minimum = sum(minimum_tokens(llm, store, args.dataset, r, questions[r.query_id]) for r in results) / n
    floor = (spent.batch_tokens / rates.prefill_tokens_per_s + spent.single_tokens / rates.decode_tokens_per_s)
    return RunRecord(
        label=args.label, method=method, dataset=args.dataset, questions=n, threads=llm._model.n_threads,
        seconds_per_q=summary.seconds_per_q, llm_calls_per_q=summary.llm_calls_per_q,
        prompt_tokens_per_q=summary.prompt_tokens_per_q,
        estimated_evaluated_per_q=summary.prompt_tokens_per_q * (1 - summary.cached_prompt_share),
        batch_tokens_per_q=spent.batch_tokens / n, single_evals_per_q=spent.single_tokens / n,
        completion_tokens_per_q=summary.completion_tokens_per_q,
        llama_seconds_per_q=(spent.batch_ms + spent.single_ms) / 1000 / n,
        floor_seconds_per_q=floor / n, depth_floor_seconds_per_q=depth_floor / n, minimum_tokens_per_q=minimum,
        prefill_tokens_per_s=rates.prefill_tokens_per_s, decode_tokens_per_s=rates.decode_tokens_per_s,
        em=100 * summary.metrics["em"].mean, f1=100 * summary.metrics["f1"].mean,
        answers={r.query_id: r.prediction for r in results}, command=command,
    )


def load_records() -> list[RunRecord]:
    if not RECORDS.exists():
        return []
    return [RunRecord(**row) for row in json.loads(RECORDS.read_text(encoding="utf-8"))]


def save_records(records: list[RunRecord]) -> None:
    RECORDS.parent.mkdir(parents=True, exist_ok=True)
    RECORDS.write_text(json.dumps([asdict(r) for r in records], indent=1), encoding="utf-8")


def same_answers(record: RunRecord, records: list[RunRecord]) -> str:
    """How many answers equal those of the first variant of the same method and dataset."""
    first = next(r for r in records if r.method == record.method and r.dataset == record.dataset)
    if first is record:
        return "(reference)"
    shared = record.answers.keys() & first.answers.keys()
    equal = sum(record.answers[q] == first.answers[q] for q in shared)
    return f"{equal}/{len(shared)} as {first.label}"


def commands(records: list[RunRecord]) -> list[tuple[str, str]]:
    """Each variant's command, in the order the variants were first run."""
    return list({r.label: r.command for r in records}.items())


def table(records: list[RunRecord]) -> str:
    lines = ["| variant | method | n | threads | prefill tok/s | decode tok/s | LLM calls/q | prompt tok/q | "
             "evaluated (hopkit's count)/q | llama.cpp batch tok/q | llama.cpp single evals/q | minimum tok/q | "
             "s/q measured | s/q in llama.cpp | s/q floor | measured ÷ floor | s/q depth-aware floor | "
             "measured ÷ depth-aware floor | EM | F1 | answers |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in records:
        minimum = "-" if r.minimum_tokens_per_q is None else f"{r.minimum_tokens_per_q:,.0f}"
        lines.append(
            f"| {r.label} | {r.method} | {r.questions} | {r.threads} | {r.prefill_tokens_per_s:.0f} | "
            f"{r.decode_tokens_per_s:.1f} | {r.llm_calls_per_q:.2f} | {r.prompt_tokens_per_q:,.0f} | "
            f"{r.estimated_evaluated_per_q:,.0f} | {r.batch_tokens_per_q:,.0f} | {r.single_evals_per_q:,.0f} | "
            f"{minimum} | {r.seconds_per_q:.2f} | {r.llama_seconds_per_q:.2f} | {r.floor_seconds_per_q:.2f} | "
            f"{r.ratio:.2f} | {r.depth_floor_seconds_per_q:.2f} | {r.depth_ratio:.2f} | {r.em:.1f} | {r.f1:.1f} | {same_answers(r, records)} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="musique")
    parser.add_argument("--methods", nargs="+", default=["nor", "oner", "ircot"])
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--llm", default=LLM_NAME)
    parser.add_argument("--threads", type=int, default=None, help="override the config's n_threads")
    parser.add_argument("--label", required=True, help="name of this variant in the table")
    parser.add_argument("--report-only", action="store_true", help="rewrite the section from the records")
    args = parser.parse_args()
    command = command_line()
    use_bench_home()
    records = load_records()
    if not args.report_only:
        llm = load_llm(args.llm, args.threads)
        rates = measure_rates(llm, data_dir())
        print(f"raw rates: prefill {rates.prefill_tokens_per_s:.0f} tok/s, decode {rates.decode_tokens_per_s:.1f} tok/s")
        for method in args.methods:
            started = time.time()
            record = run_variant(args, method, llm, rates, command)
            records = [r for r in records if (r.label, r.method, r.dataset) != (record.label, method, args.dataset)]
            records.append(record)
            save_records(records)
            print(f"{args.label} {method}: {record.seconds_per_q:.2f} s/q, floor {record.floor_seconds_per_q:.2f}, "
                  f"ratio {record.ratio:.2f} ({time.time() - started:.0f} s)")
    write_section("token-floor", "\n\n".join([
        "## The model's time: tokens evaluated and the token floor (llama.cpp's own counters)",
        "Commands (one per variant, run one after the other on the same quiet machine):\n\n"
        + "\n".join(f"- {label}: `{command}`" for label, command in commands(records))
        + f"\n\nMachine: {os.cpu_count()} cores, no GPU. Each variant runs in one process from a cold model and a fresh "
        "store (nothing resumed), NoR, OneR and IRCoT as in the QA benchmark (the authors' demonstrations, "
        "direct reader). *batch* = prompt tokens llama.cpp evaluated in batches (`n_p_eval`); *single* = "
        "one-token evaluations (`n_eval`: each generated token, and the last prompt token of a call whose "
        "prefix was cached). Floor = batch ÷ prefill rate + single ÷ decode rate, with both rates measured in "
        "the same process. A token deep in the context costs more (attention), so the *depth-aware floor* "
        "prices each call's evaluated prompt tokens and generated tokens at their depths, with per-token costs "
        "fitted on cold prompts of 500-3,000 tokens and on decoding after 100 and 2,000 tokens. *Minimum* (IRCoT): the question's collected paragraphs shown once, the question "
        "and its own CoT sentences. *Answers*: how many final answers are the same text as the first "
        "variant's.",
        table(records),
    ]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
