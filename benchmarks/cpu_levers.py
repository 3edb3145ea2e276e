"""CPU levers: llama.cpp's flash attention and two tokens per evaluation; the transformers backend's dtype.

Both variants of the model are loaded side by side and measured in interleaved rounds
(this machine's speed drifts by ±20% over minutes), keeping each variant's best round:

* prompt evaluation at depths 0-2,000 and 2,000-3,000 (the IRCoT authors' demonstrations);
* decoding: single-token evaluations after 100 and after 3,000 tokens;
* two tokens per evaluation at the same depths, which is what decoding two questions
  together (or verifying a one-token draft) costs per token.

    HOPKIT_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.cpu_levers --rounds 3

With ``--transformers-dtype``: the transformers backend (which DRAGIN needs for attention) in bfloat16
and in float32, loaded side by side, on DRAGIN's first generation for each of the first ``--rounds``
HotpotQA questions (the authors' 8 exemplars and test case, greedy, 100 tokens, with entropies and
attention), the two dtypes alternating question by question. The first call of each is cold; later
ones reuse the exemplars' key/value prefix, as DRAGIN's calls do.

    HOPKIT_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.cpu_levers --transformers-dtype --rounds 4
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

from hopkit.campaign.page_sections import command_line, write_section
from hopkit.campaign.bench_store import load_llm
from hopkit.campaign.environment import LLM_NAME, data_dir
from hopkit.campaign.probes import RATE_PROMPT_FILE
from hopkit.data.registry import load_dataset, sample_path
from hopkit.methods.dragin.prompts import generation_prompt, prompt_set

MEASURES = ("prefill 0-2,000", "prefill 2,000-3,000", "decode after 100", "decode after 3,000",
            "2 per evaluation after 100", "2 per evaluation after 3,000")


def rate(model: Any, tokens: list[int], count: int, step: int = 1) -> float:
    """Tokens per second evaluating ``count`` of ``tokens`` (after what the model holds), ``step`` per call."""
    started = time.perf_counter()
    start = model.n_tokens
    for offset in range(0, count, step):
        model.eval(tokens[start + offset:start + offset + step])
    return count / (time.perf_counter() - started)


def measure(model: Any, tokens: list[int]) -> dict[str, float]:
    model.reset()
    shallow = rate(model, tokens, 2000, 2000)
    deep = rate(model, tokens, 1000, 1000)
    decode_deep = rate(model, tokens, 24)
    pairs_deep = rate(model, tokens, 24, 2)
    model.reset()
    model.eval(tokens[:100])
    decode_shallow = rate(model, tokens, 24)
    pairs_shallow = rate(model, tokens, 24, 2)
    return dict(zip(MEASURES, (shallow, deep, decode_shallow, decode_deep, pairs_shallow, pairs_deep)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm", default=LLM_NAME)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--transformers-dtype", action="store_true",
                        help="measure the transformers backend in bfloat16 against float32 instead")
    args = parser.parse_args()
    command = command_line()
    if args.transformers_dtype:
        return measure_dtypes(max(args.rounds, 2), command)
    import llama_cpp

    plain = load_llm(args.llm, None)
    path, threads = plain._model.model_path, plain._model.n_threads
    flash = llama_cpp.Llama(path, n_ctx=plain.context_length, n_threads=threads, n_threads_batch=threads,
                            n_batch=512, flash_attn=True, verbose=False)
    text = (data_dir() / RATE_PROMPT_FILE).read_text(encoding="utf-8")
    tokens = plain._model.tokenize(text.encode("utf-8"), add_bos=True)[:3100]
    best: dict[str, dict[str, float]] = {"default": {}, "flash_attn": {}}
    for round_number in range(args.rounds):
        for name, model in (("default", plain._model), ("flash_attn", flash)):
            for key, value in measure(model, tokens).items():
                best[name][key] = max(best[name].get(key, 0.0), value)
            print(f"round {round_number + 1} {name}: " + ", ".join(f"{k} {v:.1f}" for k, v in best[name].items()))
    rows = "\n".join(f"| {key} | {best['default'][key]:.1f} | {best['flash_attn'][key]:.1f} |" for key in MEASURES)
    write_section("cpu-levers", "\n\n".join([
        "## Flash attention and two tokens per evaluation (raw llama.cpp rates, tokens/s)",
        f"Command: `{command}`",
        f"Machine: {os.cpu_count()} cores, {threads} threads. Both variants loaded side by side and measured in "
        f"{args.rounds} interleaved rounds; each cell is the variant's best round. *2 per evaluation*: two tokens "
        "evaluated in one call, counted as tokens/s.",
        "| measure | default | flash_attn |\n|---|---:|---:|\n" + rows,
    ]))
    return 0



DTYPES = ("bfloat16", "float32")
DTYPE_MODEL_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"


def dragin_prompts(questions: int) -> list[str]:
    """DRAGIN's first prompt for each of the first ``questions`` HotpotQA questions (the authors' case)."""
    examples = load_dataset("hotpotqa", sample_path("hotpotqa", data_dir()))[:questions]
    exemplars = prompt_set("hotpotqa")
    demonstrations = exemplars.demonstrations(8)
    return [generation_prompt(demonstrations, exemplars.case(example.question), "") for example in examples]


def measure_dtypes(questions: int, command: str) -> int:
    from hopkit import environment
    from hopkit.llm.transformers_backend import TransformersLLM

    model = environment.model_dir() / DTYPE_MODEL_FILE
    prompts = dragin_prompts(questions)
    load_at_start = os.getloadavg()[0]
    loaded, load_seconds = {}, {}
    for dtype in DTYPES:
        started = time.perf_counter()
        loaded[dtype] = TransformersLLM.load(model, n_ctx=4096, dtype=dtype)
        load_seconds[dtype] = time.perf_counter() - started
    calls: dict[str, list[Any]] = {dtype: [] for dtype in DTYPES}
    for number, prompt in enumerate(prompts, start=1):
        for dtype in DTYPES:
            completion = loaded[dtype].complete_attended(prompt, max_tokens=100).completion
            calls[dtype].append(completion)
            print(f"question {number} {dtype}: {completion.seconds:.1f} s, {completion.completion_tokens} tokens")
    rows = []
    for dtype in DTYPES:
        cold, warm = calls[dtype][0], calls[dtype][1:]
        warm_seconds = sum(c.seconds for c in warm)
        rows.append(f"| {dtype} | {load_seconds[dtype]:.1f} | {cold.seconds:.1f} | {cold.prompt_tokens} | {len(warm)} | "
                    f"{warm_seconds / len(warm):.1f} | {sum(c.cached_prompt_tokens for c in warm) / len(warm):.0f} | "
                    f"{sum(c.completion_tokens for c in warm) / warm_seconds:.2f} |")
    same = sum(a.text == b.text for a, b in zip(*calls.values()))
    write_section("transformers-dtype", "\n\n".join([
        "## The transformers backend: bfloat16 against float32 (DRAGIN's first generation, HotpotQA)",
        f"Command: `{command}`",
        f"Qwen2.5-Coder-1.5B-Instruct q4_k_m ({DTYPE_MODEL_FILE}) read by transformers on the CPU "
        f"({os.cpu_count()} cores, torch's own thread count), 4k context, both dtypes loaded side by side. "
        f"Each call: DRAGIN's authors' 8 HotpotQA exemplars and test case for one of the first {questions} "
        "questions, greedy, at most 100 tokens, with entropies and attention (`complete_attended`); the "
        "dtypes alternate question by question. The first call is cold, the later ones reuse the exemplars' "
        f"key/value prefix. Load average {load_at_start:.2f} at the start, {os.getloadavg()[0]:.2f} at the end.",
        "| dtype | load s | cold call s | cold prompt tok | warm calls | warm call s (mean) | "
        "warm cached prompt tok (mean) | generated tok/s (warm) |\n|---|---:|---:|---:|---:|---:|---:|---:|\n"
        + "\n".join(rows),
        f"The same text from both dtypes on {same} of {questions} questions (greedy; bfloat16 rounds every "
        "activation, so the two may part).",
    ]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
