"""hopkit's llama.cpp backend against ``python -m llama_cpp.server``, replaying the same prompts.

1. Runs a method (IRCoT by default) on the first N questions of a sample with hopkit's
   in-process backend and records every LLM call it made: the prompt, the stop
   strings and how many tokens the model generated.
2. Replays those calls, question by question and in order, once through a fresh
   :class:`~hopkit.llm.llama_cpp.LlamaCppLLM` and once through each variant of a
   ``llama_cpp.server`` started on the same GGUF with the same threads, context and
   batch size: its default, and with its prompt cache (``--cache true``), which keeps
   the states of earlier prompts as hopkit's saved KV states do. Every replayed call
   asks for exactly as many tokens as the recorded one generated (greedy), so each
   side evaluates the same prompts and generates the same number of tokens.

Reported per variant: seconds per question (client side: the HTTP round trips count
for the server, as they would for a user), prompt tokens llama.cpp evaluated (the
server's own ``llama_perf`` lines, hopkit's counters) and how many generated texts
equal the recorded ones. Needs the server's extra packages::

    .venv/bin/pip install -e ".[bench]"   # llama-cpp-python[server]: uvicorn, fastapi, sse-starlette, ...
    HOPKIT_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.server_replay --dataset musique --limit 3
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from dataclasses import asdict, dataclass
from typing import Any, Sequence

from hopkit.campaign.page_sections import command_line, write_section
from hopkit.campaign.bench_store import load_llm
from hopkit.campaign.environment import BENCH_HOME, LLM_NAME, use_bench_home
from hopkit.campaign.qa_bench import pipeline_for
from hopkit.campaign.probes import SERVER_REPLAY_CALLS, SERVER_REPLAY_RESULTS, Counters, fresh_store, free_port, record_calls, wait_until_up
from hopkit.llm.llama_cpp import LlamaCppLLM

RECORDED = SERVER_REPLAY_CALLS
RESULTS = SERVER_REPLAY_RESULTS
PERF_LINE = re.compile(r"prompt eval time\s*=\s*([\d.]+) ms /\s*(\d+) tokens")


@dataclass(frozen=True)
class Call:
    """One recorded LLM call: what was asked and what the model wrote."""

    question: str
    prompt: str
    stop: list[str]
    generated_tokens: int
    text: str


@dataclass(frozen=True)
class Replay:
    """One backend's replay of the recorded calls."""

    variant: str
    questions: int
    calls: int
    seconds_per_question: list[float]
    evaluated_tokens: int
    same_text: int


def record_method_calls(args: argparse.Namespace) -> list[Call]:
    """Run the method on the first ``--limit`` questions and keep every call it made."""
    llm = load_llm(args.llm, args.threads)
    session_factory, store = fresh_store(f"replay-{args.method}-{args.dataset}", args.dataset)
    pipeline = pipeline_for(args.method, args.dataset, session_factory, llm)
    made = record_calls(llm)
    run_id = pipeline.run(limit=args.limit)["run_id"]
    llm.close()
    calls: list[Call] = []
    remaining = iter(made)
    for result in store.results(run_id):  # one question at a time: its calls are consecutive
        for _ in range(result.usage.llm_calls):
            made_call = next(remaining)
            calls.append(Call(result.query_id, made_call.prompt, list(made_call.stop),
                              made_call.completion.completion_tokens, made_call.completion.text))
    return calls


def by_question(calls: Sequence[Call]) -> list[list[Call]]:
    groups: dict[str, list[Call]] = {}
    for call in calls:
        groups.setdefault(call.question, []).append(call)
    return list(groups.values())


def replay_in_process(args: argparse.Namespace, calls: Sequence[Call]) -> Replay:
    llm: LlamaCppLLM = load_llm(args.llm, args.threads)
    before = Counters.read(llm)
    seconds, same = [], 0
    for group in by_question(calls):
        started = time.perf_counter()
        for call in group:
            text = llm.complete(call.prompt, stop=call.stop, max_tokens=max(call.generated_tokens, 1)).text
            same += text == call.text
        seconds.append(time.perf_counter() - started)
    evaluated = (Counters.read(llm) - before).batch_tokens
    llm.close()
    return Replay("hopkit (in-process)", len(seconds), len(calls), seconds, evaluated, same)


def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=600) as response:
        return json.loads(response.read())


def replay_on_server(args: argparse.Namespace, calls: Sequence[Call], model_path: str, threads: int,
                     n_ctx: int, cache: bool) -> Replay:
    port = free_port()
    log_path = BENCH_HOME / f"server-{'cache' if cache else 'default'}.log"
    command = [sys.executable, "-m", "llama_cpp.server", "--model", model_path, "--n_ctx", str(n_ctx),
               "--n_threads", str(threads), "--n_threads_batch", str(threads), "--n_batch", "512",
               "--host", "127.0.0.1", "--port", str(port), "--verbose", "true"]
    if cache:
        command += ["--cache", "true", "--cache_type", "ram"]
    with open(log_path, "w", encoding="utf-8") as log:
        server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_until_up(f"http://127.0.0.1:{port}/v1/models", server)
            seconds, same = [], 0
            for group in by_question(calls):
                started = time.perf_counter()
                for call in group:
                    response = post(f"http://127.0.0.1:{port}/v1/completions", {
                        "prompt": call.prompt, "max_tokens": max(call.generated_tokens, 1), "temperature": 0.0,
                        "stop": call.stop, "repeat_penalty": 1.0, "seed": 0})
                    same += response["choices"][0]["text"] == call.text
                seconds.append(time.perf_counter() - started)
        finally:
            server.terminate()
            server.wait(timeout=60)
    evaluated = sum(int(m.group(2)) for m in PERF_LINE.finditer(log_path.read_text(encoding="utf-8")))
    name = "llama_cpp.server --cache true" if cache else "llama_cpp.server (default)"
    return Replay(name, len(seconds), len(calls), seconds, evaluated, same)


def table(replays: Sequence[Replay], calls: Sequence[Call]) -> str:
    groups = by_question(calls)
    lines = ["| backend | questions | calls | s/q (mean) | s per question | prompt tokens evaluated (llama.cpp) | "
             "texts as recorded |", "|---|---:|---:|---:|---|---:|---|"]
    for r in replays:
        per = ", ".join(f"{s:.1f}" for s in r.seconds_per_question)
        lines.append(f"| {r.variant} | {r.questions} | {r.calls} | {sum(r.seconds_per_question) / r.questions:.1f} | "
                     f"{per} | {r.evaluated_tokens:,} | {r.same_text}/{r.calls} |")
    prompt_tokens = sum(len(c.prompt) for c in calls)
    lines.append("")
    lines.append(f"{len(groups)} questions, {len(calls)} calls, {prompt_tokens:,} prompt characters.")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="musique")
    parser.add_argument("--method", default="ircot")
    parser.add_argument("--limit", type=int, default=3)
    parser.add_argument("--llm", default=LLM_NAME)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--replay-only", action="store_true", help="replay the calls recorded last time")
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args()
    command = command_line()
    use_bench_home()
    if not args.report_only:
        if args.replay_only:
            calls = [Call(**c) for c in json.loads(RECORDED.read_text(encoding="utf-8"))]
        else:
            calls = record_method_calls(args)
            RECORDED.write_text(json.dumps([asdict(c) for c in calls], indent=1), encoding="utf-8")
        probe = load_llm(args.llm, args.threads)
        model_path, threads, n_ctx = probe._model.model_path, probe._model.n_threads, probe.context_length
        probe.close()
        replays = [replay_in_process(args, calls)]
        for cache in (False, True):
            replays.append(replay_on_server(args, calls, model_path, threads, n_ctx, cache))
            print(replays[-1])
        RESULTS.write_text(json.dumps({"command": command, "replays": [asdict(r) for r in replays]}, indent=1),
                           encoding="utf-8")
    saved = json.loads(RESULTS.read_text(encoding="utf-8"))
    calls = [Call(**c) for c in json.loads(RECORDED.read_text(encoding="utf-8"))]
    replays = [Replay(**r) for r in saved["replays"]]
    write_section("server-replay", "\n\n".join([
        "## hopkit's backend against `llama_cpp.server`, same prompts",
        f"Command: `{saved['command']}`",
        f"Machine: {os.cpu_count()} cores. The calls {args.method} made on the first questions of {args.dataset} "
        "were recorded, then replayed in order by each backend from a cold start: hopkit's in-process "
        "`LlamaCppLLM`, and `python -m llama_cpp.server` on the same GGUF, threads, context and batch, with its "
        "default settings and with its RAM prompt cache. Each replayed call asks for as many tokens as the "
        "recorded one generated, at temperature 0. Seconds are the client's, HTTP included for the server.",
        table(replays, calls),
    ]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
