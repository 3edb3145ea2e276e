"""Prompt-lookup decoding: what it could save on the calls a method really made (an upper bound).

Prompt-lookup decoding drafts the next tokens by finding the last few generated tokens
earlier in the prompt and proposing what followed them there; one evaluation of the
current token plus the draft then checks them all, and greedy output is unchanged.
Whether it pays depends on how often the model copies, and on what a batch of m
tokens costs against m single evaluations on this CPU.

This replays the generations recorded by ``benchmarks.server_replay`` (the prompt and
the text of every call), simulates the drafting exactly (longest n-gram match, n = 3,
2, 1, most recent occurrence, drafts of up to ``--draft`` tokens), and prices every
evaluation with costs measured here by llama.cpp for batches of 1 to draft + 1 tokens
at the calls' depth. The saving is an upper bound: it assumes every evaluation of the
real implementation costs what a plain batch does, with no sampling overhead.

    HOPKIT_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.prompt_lookup_bound --draft 4
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Sequence

from hopkit.campaign.page_sections import command_line, write_section
from hopkit.campaign.bench_store import load_llm
from hopkit.campaign.environment import LLM_NAME
from hopkit.campaign.probes import SERVER_REPLAY_CALLS as RECORDED
from hopkit.campaign.probes import SERVER_REPLAY_RESULTS as RESULTS


def draft(context: Sequence[int], limit: int, longest_ngram: int = 3) -> list[int]:
    """Up to ``limit`` tokens that followed the latest earlier occurrence of the context's last n-gram."""
    for n in range(min(longest_ngram, len(context) - 1), 0, -1):
        tail = list(context[-n:])
        for start in range(len(context) - n - 1, -1, -1):
            if list(context[start:start + n]) == tail:
                return list(context[start + n:start + n + limit])
    return []


def evaluations(prompt: Sequence[int], generated: Sequence[int], limit: int) -> list[int]:
    """Batch sizes of the evaluations greedy prompt-lookup decoding makes to produce ``generated``."""
    sizes, done = [], 0
    while done < len(generated):
        proposal = draft([*prompt, *generated[:done]], limit)
        accepted = 0
        while accepted < len(proposal) and done + accepted < len(generated) \
                and proposal[accepted] == generated[done + accepted]:
            accepted += 1
        sizes.append(1 + len(proposal))
        done += accepted + 1
    return sizes


def batch_costs(llm: object, depth: int, largest: int, repeats: int = 5) -> dict[int, float]:
    """Seconds llama.cpp takes to evaluate a batch of m tokens after ``depth`` tokens (best of ``repeats``)."""
    model = llm._model  # type: ignore[attr-defined]
    text = " ".join(f"word{i}" for i in range(4 * depth))
    tokens = model.tokenize(text.encode("utf-8"), add_bos=True)[: depth + largest]
    costs: dict[int, float] = {}
    model.reset()
    model.eval(tokens[:depth])
    for m in range(1, largest + 1):
        best = float("inf")
        for _ in range(repeats):
            model.n_tokens = depth  # eval drops what lies beyond: each batch starts at the same depth
            started = time.perf_counter()
            model.eval(tokens[depth:depth + m])
            best = min(best, time.perf_counter() - started)
        costs[m] = best
    model.reset()
    return costs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draft", type=int, default=4, help="most tokens drafted per evaluation")
    parser.add_argument("--llm", default=LLM_NAME)
    args = parser.parse_args()
    command = command_line()
    calls = json.loads(RECORDED.read_text(encoding="utf-8"))
    recorded_seconds = json.loads(RESULTS.read_text(encoding="utf-8"))["replays"][0]["seconds_per_question"]
    llm = load_llm(args.llm, None)
    tokenize = llm._model.tokenize
    plain_sizes: list[int] = []
    lookup_sizes: list[int] = []
    depths = []
    for call in calls:
        prompt = tokenize(call["prompt"].encode("utf-8"), add_bos=True, special=True)
        generated = tokenize(call["text"].encode("utf-8"), add_bos=False, special=True)
        if not generated:
            continue
        depths.append(len(prompt))
        plain_sizes += [1] * len(generated)
        lookup_sizes += evaluations(prompt, generated, args.draft)
    depth = sorted(depths)[len(depths) // 2]
    costs = batch_costs(llm, depth, args.draft + 1)
    plain = sum(costs[m] for m in plain_sizes)
    lookup = sum(costs[m] for m in lookup_sizes)
    questions = len({c["question"] for c in calls})
    per_question = sum(recorded_seconds) / len(recorded_seconds)
    saved = (plain - lookup) / questions
    write_section("prompt-lookup", "\n\n".join([
        "## Prompt-lookup decoding: an upper bound on the calls IRCoT made",
        f"Command: `{command}` (on the calls recorded by `benchmarks.server_replay`)",
        f"{questions} questions, {len(calls)} calls, {len(plain_sizes)} generated tokens, median prompt "
        f"{depth:,} tokens. Batch costs measured by llama.cpp after {depth:,} tokens: "
        + ", ".join(f"{m} token{'s' if m > 1 else ''} {1000 * c:.0f} ms" for m, c in costs.items()) + ".",
        "| decoding | evaluations | tokens evaluated | decode seconds / question |\n|---|---:|---:|---:|\n"
        f"| one token per evaluation | {len(plain_sizes)} | {len(plain_sizes)} | {plain / questions:.2f} |\n"
        f"| prompt lookup, drafts of up to {args.draft} | {len(lookup_sizes)} | {sum(lookup_sizes)} | "
        f"{lookup / questions:.2f} |",
        f"At most {saved:.2f} s saved per question, {100 * saved / per_question:.1f}% of the "
        f"{per_question:.1f} s the in-process replay of these questions took.",
    ]))
    print(f"decode {plain / questions:.2f} -> {lookup / questions:.2f} s/q ({100 * saved / per_question:.1f}%)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
