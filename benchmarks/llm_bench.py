"""llama.cpp backend speed, and the time KV prefix reuse saves on an IRCoT prompt.

For each GGUF file in ``$HOPKIT_MODEL_DIR`` (default ``~/.cache/local-models``):

* prompt evaluation (tokens/s): a cold call on the IRCoT prompt with ``max_tokens=1``;
* generation (tokens/s): new tokens per second of a call whose prompt is already cached;
* prefix reuse: IRCoT's second reasoning step (the same demonstrations and first
  paragraphs, two more paragraphs, the question and the first CoT sentence) run
  right after the first step, reusing the cached prefix, versus the same prompt cold;
* early stop: step 1's reasoning call to the end of its line, and streamed until its
  first sentence is settled;
* saved KV states: question 1's reasoning step and its reader call (the direct-QA
  demonstrations), then the same two calls for question 2, with the backend's saved
  states (``kv_states=4``) and without (``kv_states=0``); question 2's two calls are timed.

The prompt is the IRCoT authors' HotpotQA CoT file
(``$HOPKIT_DATA_DIR/ircot/prompts/hotpotqa/gold_with_2_distractors_context_cot_qa_codex.txt``),
with as many demonstrations as fit ~3000 tokens, and the first question of
``$HOPKIT_DATA_DIR/hotpotqa/hotpot_dev_distractor_sample.json``.

Run: ``HOPKIT_DATA_DIR=../shared/data PYTHONPATH=src .venv/bin/python -m benchmarks.llm_bench``
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import sys
import time
from dataclasses import dataclass
from functools import partial
from importlib.metadata import version
from pathlib import Path

from hopkit.campaign.page_sections import write_section
from hopkit import environment
from hopkit.judges.sentences import SyntokSplitter, first_sentence_settled
from hopkit.llm.llama_cpp import LlamaCppLLM

logger = logging.getLogger("llm_bench")
SPLITTER = SyntokSplitter()

PROMPT_FILE = "ircot/prompts/hotpotqa/gold_with_2_distractors_context_cot_qa_codex.txt"
READER_FILE = "ircot/prompts/hotpotqa/gold_with_2_distractors_context_direct_qa_codex.txt"
QUESTIONS_FILE = "hotpotqa/hotpot_dev_distractor_sample.json"
COMMAND = "HOPKIT_DATA_DIR=../shared/data PYTHONPATH=src .venv/bin/python -m benchmarks.llm_bench"


@dataclass(frozen=True)
class Row:
    model: str
    load_seconds: float
    prompt_tokens_per_second: float
    generation_tokens_per_second: float
    step2_prompt_tokens: int
    step2_cached_tokens: int
    cold_seconds: float
    warm_seconds: float
    same_text: bool
    line_tokens: int
    line_seconds: float
    early_tokens: int
    early_seconds: float
    same_first_sentence: bool


@dataclass(frozen=True)
class Alternation:
    model: str
    kv_states: int
    prompt_tokens: int
    cached_tokens: int
    seconds: float
    texts: tuple[str, ...]


def demonstrations(data_dir: Path, prompt_file: str = PROMPT_FILE) -> list[str]:
    """The IRCoT demonstrations of a prompt file, without their ``# METADATA`` lines."""
    text = (data_dir / prompt_file).read_text(encoding="utf-8")
    demos = []
    for block in text.split("\n\n\n"):
        lines = [line for line in block.strip("\n").splitlines() if not line.startswith("# METADATA")]
        if lines:
            demos.append("\n".join(lines))
    return demos


def question(data_dir: Path, index: int = 0) -> tuple[str, list[str]]:
    """A HotpotQA question of the sample and its paragraphs as IRCoT blocks, gold ones first."""
    item = json.loads((data_dir / QUESTIONS_FILE).read_text(encoding="utf-8"))[index]
    gold = {title for title, _ in item["supporting_facts"]}
    ordered = sorted(item["context"], key=lambda pair: pair[0] not in gold)
    blocks = [f"Wikipedia Title: {title}\n{''.join(sentences).strip()}" for title, sentences in ordered]
    return item["question"], blocks


def ircot_prompt(demos: str, paragraphs: list[str], query: str, cot: str) -> str:
    return demos + "\n\n\n" + "\n\n".join(paragraphs) + f"\n\nQ: {query}\nA:" + (f" {cot}" if cot else "")


def fitted_demonstrations(llm: LlamaCppLLM, data_dir: Path, prompt_file: str, budget: int,
                          tail_tokens: int) -> str:
    """As many of the file's demonstrations as fit ``budget`` tokens with ``tail_tokens`` after them."""
    kept: list[str] = []
    for demo in demonstrations(data_dir, prompt_file):
        if llm.count_tokens("\n\n\n".join(kept + [demo])) + tail_tokens > budget:
            break
        kept.append(demo)
    logger.info("%s: %d demonstrations kept", prompt_file, len(kept))
    return "\n\n\n".join(kept)


def measure(path: Path, data_dir: Path, budget: int, n_ctx: int, threads: int) -> Row:
    """Load one model and time the IRCoT steps (see the module docstring)."""
    started = time.perf_counter()
    llm = LlamaCppLLM.load(path, n_ctx=n_ctx, n_threads=threads)
    load_seconds = time.perf_counter() - started
    query, paragraphs = question(data_dir)
    tail_tokens = llm.count_tokens(ircot_prompt("", paragraphs[:4], query, "x" * 200))
    demos = fitted_demonstrations(llm, data_dir, PROMPT_FILE, budget, tail_tokens)

    step1 = ircot_prompt(demos, paragraphs[:2], query, "")
    llm.reset()
    cold1 = llm.complete(step1, max_tokens=1)  # prompt evaluation from scratch
    logger.info("%s: step 1 cold, %d tokens in %.1fs", path.name, cold1.prompt_tokens, cold1.seconds)
    # Everything but the last prompt token is cached now: this call is nearly pure generation.
    generated = llm.complete(step1, max_tokens=48, stop=["\n"])
    line = llm.complete(step1, max_tokens=100, stop=["\n"])  # IRCoT's reasoning call, to the end of the line
    early = llm.complete_until(step1, partial(first_sentence_settled, SPLITTER), max_tokens=100, stop=["\n"])
    sentence = generated.text.strip() or "The answer is unknown."
    logger.info("%s: step 1 sentence %r (%d tokens, %.1fs)", path.name, sentence, generated.completion_tokens,
                generated.seconds)
    step2 = ircot_prompt(demos, paragraphs[:4], query, sentence)
    warm = llm.complete(step2, max_tokens=48, stop=["\n"])
    llm.reset()
    cold = llm.complete(step2, max_tokens=48, stop=["\n"])
    logger.info("%s: step 2 warm %.2fs (%d/%d cached), cold %.2fs", path.name, warm.seconds,
                warm.cached_prompt_tokens, warm.prompt_tokens, cold.seconds)
    llm.close()
    return Row(model=path.stem, load_seconds=load_seconds,
               prompt_tokens_per_second=cold1.prompt_tokens / cold1.seconds,
               generation_tokens_per_second=generated.completion_tokens / generated.seconds,
               step2_prompt_tokens=warm.prompt_tokens, step2_cached_tokens=warm.cached_prompt_tokens,
               cold_seconds=cold.seconds, warm_seconds=warm.seconds, same_text=warm.text == cold.text,
               line_tokens=line.completion_tokens, line_seconds=line.seconds, early_tokens=early.completion_tokens,
               early_seconds=early.seconds,
               same_first_sentence=SPLITTER.first(line.text) == SPLITTER.first(early.text))


def measure_alternation(path: Path, data_dir: Path, budget: int, n_ctx: int, threads: int,
                        kv_states: int) -> Alternation:
    """Reasoning then reading for two questions; question 2's two calls timed (see the module docstring)."""
    llm = LlamaCppLLM.load(path, n_ctx=n_ctx, n_threads=threads, kv_states=kv_states)
    questions = [question(data_dir, index) for index in (0, 1)]
    tail_tokens = max(llm.count_tokens(ircot_prompt("", paragraphs[:4], query, "x" * 200))
                      for query, paragraphs in questions)
    reasoning_demos = fitted_demonstrations(llm, data_dir, PROMPT_FILE, budget, tail_tokens)
    reader_demos = fitted_demonstrations(llm, data_dir, READER_FILE, budget, tail_tokens)
    timed = []
    for query, paragraphs in questions:
        timed = [llm.complete(ircot_prompt(reasoning_demos, paragraphs[:4], query, ""), max_tokens=24, stop=["\n"]),
                 llm.complete(ircot_prompt(reader_demos, paragraphs[:4], query, ""), max_tokens=12, stop=["\n"])]
    llm.close()
    return Alternation(model=path.stem, kv_states=kv_states, prompt_tokens=sum(c.prompt_tokens for c in timed),
                       cached_tokens=sum(c.cached_prompt_tokens for c in timed),
                       seconds=sum(c.seconds for c in timed), texts=tuple(c.text for c in timed))


def render_early_stop(rows: list[Row]) -> str:
    lines = [
        "Early stop: IRCoT keeps only the first sentence of each reasoning generation. Step 1's call "
        "generated to the end of its line (at most 100 tokens), against the same call streamed and ended "
        "once a second sentence has begun with two words (`complete_until`, which IRCoT uses).",
        "",
        "| model | to end of line: tokens | seconds | early stop: tokens | seconds | same first sentence |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        lines.append(f"| {row.model} | {row.line_tokens} | {row.line_seconds:.2f} | {row.early_tokens} | "
                     f"{row.early_seconds:.2f} | {'yes' if row.same_first_sentence else 'no'} |")
    return "\n".join(lines)


def render_alternation(rows: list[Alternation]) -> str:
    lines = [
        "Saved KV states: question 1's first reasoning step, then its reader call (the direct-QA "
        f"demonstrations of `{READER_FILE}`), then the same two calls for question 2 (4 paragraphs each). "
        "Question 2's two calls are timed. Without saved states (`kv_states=0`) each switch between the "
        "two prompts evaluates its demonstrations again; with them (`kv_states=4`, the default) they are "
        "restored.",
        "",
        "| model | kv_states | prompt tokens | cached share | seconds | same text as kv_states=0 |",
        "|---|---:|---:|---:|---:|---|",
    ]
    baseline = {row.model: row.texts for row in rows if row.kv_states == 0}
    for row in rows:
        same = "yes" if baseline.get(row.model) == row.texts else "no"
        lines.append(f"| {row.model} | {row.kv_states} | {row.prompt_tokens} | "
                     f"{row.cached_tokens / row.prompt_tokens:.0%} | {row.seconds:.2f} | {same} |")
    return "\n".join(lines)


def render(rows: list[Row], *, budget: int, n_ctx: int, threads: int,
           load_average: tuple[float, float]) -> str:
    lines = [
        "## LLM backend (llama.cpp)",
        "",
        f"Command: `{COMMAND}`  ",
        f"Machine: {platform.processor() or platform.machine()}, nproc={os.cpu_count()}, "
        f"n_threads={threads}, n_ctx={n_ctx}, llama-cpp-python {version('llama-cpp-python')}"
        f". 1-minute load average at start/end: {load_average[0]:.2f}/{load_average[1]:.2f}; above "
        f"nproc means other jobs shared the cores, so absolute speeds are pessimistic and the cold/warm "
        f"ratio is the robust number.",
        "",
        f"IRCoT prompt: HotpotQA CoT demonstrations (`{PROMPT_FILE}`) cut to fit ~{budget} tokens, "
        "then the first question of the HotpotQA sample. Step 1 holds 2 paragraphs; step 2 appends 2 more "
        "paragraphs and the first CoT sentence, as IRCoT does. *Warm* runs step 2 right after step 1 "
        "(the demonstrations and the first 2 paragraphs are reused from the KV cache); *cold* runs it "
        "after a reset. Both greedy, at most 48 new tokens, stop at newline. Prompt eval: step 1 cold "
        "with one new token. Generation: step 1's CoT sentence, its prompt already cached (so at "
        "~2.7k tokens of context).",
        "",
        "| model | load s | prompt eval tok/s | generation tok/s | step-2 prompt tokens | cached share "
        "| cold s | warm s | saved | same text |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        share = row.step2_cached_tokens / row.step2_prompt_tokens
        saved = 1 - row.warm_seconds / row.cold_seconds
        lines.append(f"| {row.model} | {row.load_seconds:.1f} | {row.prompt_tokens_per_second:.0f} "
                     f"| {row.generation_tokens_per_second:.1f} | {row.step2_prompt_tokens} | {share:.0%} "
                     f"| {row.cold_seconds:.2f} | {row.warm_seconds:.2f} | {saved:.0%} "
                     f"| {'yes' if row.same_text else 'no'} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=3000, help="tokens of the step-2 prompt (about)")
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--no-write", action="store_true", help="print the section, do not write docs/benchmarks.md")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")

    data_dir = environment.data_dir()  # the samples' folder; the package's __init__ set the model folder
    if data_dir is None or not (data_dir / PROMPT_FILE).is_file():
        logger.error("set HOPKIT_DATA_DIR to the folder holding %s (e.g. ../shared/data)", PROMPT_FILE)
        return 2
    model_dir = environment.model_dir()
    models = sorted(model_dir.glob("*.gguf"), key=lambda p: p.stat().st_size)
    if not models:
        logger.error("no .gguf files in %s; set HOPKIT_MODEL_DIR", model_dir)
        return 2
    load_at_start = os.getloadavg()[0]
    rows = [measure(path, data_dir, args.budget, args.n_ctx, args.threads) for path in models]
    alternations = [measure_alternation(path, data_dir, args.budget, args.n_ctx, args.threads, kv)
                    for path in models for kv in (0, 4)]
    section = render(rows, budget=args.budget, n_ctx=args.n_ctx, threads=args.threads,
                     load_average=(load_at_start, os.getloadavg()[0]))
    section += "\n\n" + render_early_stop(rows) + "\n\n" + render_alternation(alternations)
    sys.stdout.write(section + "\n")
    if not args.no_write:
        write_section("llm", section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
