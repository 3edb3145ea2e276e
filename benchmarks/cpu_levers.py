"""Two llama.cpp levers measured on raw evaluation: flash attention, and two tokens per evaluation.

Both variants of the model are loaded side by side and measured in interleaved rounds
(this machine's speed drifts by ±20% over minutes), keeping each variant's best round:

* prompt evaluation at depths 0-2,000 and 2,000-3,000 (the IRCoT authors' demonstrations);
* decoding: single-token evaluations after 100 and after 3,000 tokens;
* two tokens per evaluation at the same depths, which is what decoding two questions
  together (or verifying a one-token draft) costs per token.

    HOPKIT_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.cpu_levers --rounds 3
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
    args = parser.parse_args()
    command = command_line()
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


if __name__ == "__main__":
    raise SystemExit(main())
