"""One model in-process, behind one ``llama_cpp.server``, and behind a farm of two: questions per hour.

The same method (OneR and IRCoT by default) on the same questions, one variant after the
other on an otherwise idle machine (``python -m benchmarks.server_farm retrieval`` compares a retriever in
process and behind ``hopkit serve-retrieval`` instead, the model in process both times):

1. hopkit's in-process llama.cpp backend with ``--threads`` threads (one question at a time);
2. one ``python -m llama_cpp.server`` with ``--threads`` threads, hopkit sending two
   questions at a time (the server answers one request at a time);
3. a farm of two servers with half the threads each, hopkit sending two questions at a
   time over both base URLs (the OpenAI-compatible backend balances them).

Every variant uses the completions endpoint with the raw prompt and greedy decoding, so
the answers can be compared with the in-process ones. Reported: seconds, questions per
hour, generated tokens per second, and how many answers equal the in-process ones.
Needs the server's packages (``pip install -e ".[bench]"``)::

    HOPKIT_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.server_farm --dataset hotpotqa --limit 10

It writes ``benchmarks/results/server_farm.json`` (each cell as soon as it is measured; a
rerun skips those) and the ``server-farm`` section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import yaml

from hopkit.campaign import serving_load
from hopkit.campaign.page_sections import command_line, markdown_table, write_section
from hopkit.campaign.environment import BENCH_HOME, LLM_NAME, ROOT, use_home, use_local_models, use_model_server
from hopkit.campaign.probes import free_port, wait_until_up
from hopkit.config import named_spec
from hopkit.llm.hub import is_hub_uri, local_model_file, parse_hub_uri
from hopkit.data.registry import load_dataset, sample_path
from hopkit.data.corpus import pool_corpus
from hopkit.pipelines.generation.registered import method_pipeline
from hopkit.pipelines.retrieval.bm25 import BM25RetrievalPipeline
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store

RESULTS = ROOT / "benchmarks" / "results" / "server_farm.json"
FARM_LLM = "farm-completions"


def model_path() -> str:
    """The GGUF file of :data:`LLM_NAME` on this machine (``$HOPKIT_MODEL_DIR``), without loading it."""
    uri = named_spec("llm", LLM_NAME)["model_path"]
    local = local_model_file(parse_hub_uri(uri)) if is_hub_uri(uri) else Path(uri)
    if local is None or not local.exists():
        raise SystemExit(f"{uri} is not on this machine: put it in $HOPKIT_MODEL_DIR")
    return str(local)


def start_servers(stack: ExitStack, count: int, threads: int, n_ctx: int, folder: Path) -> list[str]:
    """``count`` llama_cpp.server processes on loopback ports; their base URLs once all answer."""
    urls, servers = [], []
    for number in range(count):
        port = free_port()
        log = stack.enter_context(open(folder / f"server-{count}-{number}.log", "w", encoding="utf-8"))
        server = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", model_path(), "--n_ctx",
                                   str(n_ctx), "--n_threads", str(threads), "--n_threads_batch", str(threads),
                                   "--host", "127.0.0.1", "--port", str(port)], stdout=log, stderr=subprocess.STDOUT)
        stack.callback(lambda s=server: (s.terminate(), s.wait(timeout=60)))
        servers.append(server)
        urls.append(f"http://127.0.0.1:{port}/v1")
    for url, server in zip(urls, servers):
        wait_until_up(f"{url}/models", server)
    return urls


def write_farm_config(folder: Path, context_length: int) -> None:
    """An OpenAI-compatible LLM config on the completions endpoint, in ``folder/configs/llm``."""
    config = {"_target_": "hopkit.llm.openai_compat.OpenAICompatibleLLM", "base_url": "${OPENAI_BASE_URL}",
              "model": "${HOPKIT_OPENAI_MODEL}", "endpoint": "completions", "context_length": context_length,
              "timeout": 600}
    (folder / "configs" / "llm").mkdir(parents=True, exist_ok=True)
    (folder / "configs" / "llm" / f"{FARM_LLM}.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")


def run_cell(method: str, llm: str, batch_size: int, args: argparse.Namespace, store: Store) -> dict[str, Any]:
    session_factory = store._factory
    retrieval = BM25RetrievalPipeline(session_factory, "bm25", args.dataset)
    pipeline = method_pipeline(method)(session_factory, f"{method}-{llm}", llm, retrieval, dataset=args.dataset,
                                       batch_size=batch_size)
    run_id = pipeline.run_spec().run_id
    if any(r.run_id == run_id for r in store.runs(args.dataset)):
        store.delete_run(run_id)
    started = time.perf_counter()
    outcome = pipeline.run(limit=args.limit, progress=True)
    seconds = time.perf_counter() - started
    results = store.results(outcome["run_id"])
    generated = sum(r.usage.completion_tokens for r in results)
    return {"seconds": round(seconds, 1), "questions": len(results), "failed": outcome["failed"],
            "questions_per_hour": round(3600 * len(results) / seconds, 1),
            "generated_tokens_per_second": round(generated / seconds, 2),
            "answers": {r.query_id: r.prediction for r in results}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default="hotpotqa")
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--methods", nargs="+", default=["oner", "ircot"])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--write-only", action="store_true")
    args = parser.parse_args()
    saved = json.loads(RESULTS.read_text()) if RESULTS.exists() else {"cells": []}
    if not args.write_only:
        measure(args, saved)
    write_section("server-farm", section(saved))


def measure(args: argparse.Namespace, saved: dict[str, Any]) -> None:
    folder = BENCH_HOME / "server-farm"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    use_home(folder)
    use_local_models()
    context_length = int(named_spec("llm", LLM_NAME).get("n_ctx", 4096))
    write_farm_config(folder, context_length)
    store = Store(DBConnection(f"sqlite:///{folder / 'hopkit.db'}").get_session_factory())
    store.add_corpus(pool_corpus(args.dataset, load_dataset(args.dataset, sample_path(args.dataset))))
    os.chdir(folder)  # the farm's LLM config is found in ./configs/llm
    variants = [("in-process", LLM_NAME, 1, 0, 0), ("one llama_cpp.server", FARM_LLM, 2, 1, args.threads),
                ("farm of two servers", FARM_LLM, 2, 2, max(1, args.threads // 2))]
    done = {(c["method"], c["variant"], c["dataset"], c["limit"]) for c in saved["cells"]}
    for method in args.methods:
        for variant, llm, batch_size, servers, threads in variants:
            if (method, variant, args.dataset, args.limit) in done:
                continue
            with ExitStack() as stack:
                if servers:
                    use_model_server(",".join(start_servers(stack, servers, threads, context_length, folder)),
                                     "qwen")
                cell = run_cell(method, llm, batch_size, args, store)
            saved["cells"].append({"method": method, "variant": variant, "dataset": args.dataset,
                                   "limit": args.limit, "threads": threads or args.threads, **cell})
            saved["command"] = command_line()
            RESULTS.write_text(json.dumps(saved, indent=1) + "\n", encoding="utf-8")


VARIANT_ORDER = ("in-process", "one llama_cpp.server", "farm of two servers")


def section(saved: dict[str, Any]) -> str:
    rows = []
    for cell in sorted(saved["cells"], key=lambda c: (c["method"] != "oner", VARIANT_ORDER.index(c["variant"]))):
        reference = next((c for c in saved["cells"] if c["method"] == cell["method"] and c["variant"] == "in-process"
                          and c["dataset"] == cell["dataset"] and c["limit"] == cell["limit"]), None)
        same = (sum(cell["answers"].get(q) == a for q, a in reference["answers"].items()) if reference else "-")
        rows.append(f"| {cell['method']} | {cell['variant']} | {cell['threads']} | {cell['questions']} | "
                    f"{cell['seconds']} | {cell['questions_per_hour']} | {cell['generated_tokens_per_second']} | "
                    f"{same}/{cell['questions']} |")
    return "\n\n".join([
        "## One model in-process, behind one server, behind a farm of two",
        f"Command: `{saved.get('command', '')}` (cells in `benchmarks/results/server_farm.json`).",
        "Qwen2.5-Coder-1.5B (Q4_K_M), 2 cores; each method with its default options (zero-shot), each variant "
        "run alone on the same questions. Servers are `python -m llama_cpp.server`, which answers one request "
        "at a time; hopkit keeps two questions in flight against a server or the farm.",
        markdown_table(["method", "variant", "threads per model", "questions", "seconds", "questions/hour",
                        "generated tokens/s", "answers as in-process"], rows),
        "Two cores are one budget however they are split: two one-thread servers do the work of one two-thread "
        "model, so a farm pays off when its servers have hardware of their own (GPUs, nodes), not here. OneR "
        "(one short call per question) runs at about the same rate all three ways. IRCoT is slower behind a "
        "server: in-process hopkit keeps a question's prompt (its paragraphs and reasoning so far) in the KV "
        "cache from one call to the next, while a server taking two questions' calls in turn finds the other "
        "question's prompt in its context and evaluates most of each prompt again (the replay benchmark above "
        "measures that cost one request at a time). Answers behind a server differ from the in-process ones in "
        "wording on half the questions, most likely because llama.cpp's logits depend on how a prompt is split "
        "into batches, which depends on what the server's context held before, and greedy decoding follows a "
        "near-tie either way.",
    ])


def retrieval(argv: list[str]) -> None:
    """``retrieval``: the methods over BM25 in process and behind ``hopkit serve-retrieval``, the in-process model
    answering both (:func:`hopkit.campaign.serving_load.compare_methods`)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.server_farm retrieval", description=retrieval.__doc__)
    parser.add_argument("--dataset", default="hotpotqa")
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--methods", nargs="+", default=["oner", "ircot"])
    parser.add_argument("--llm", default=LLM_NAME)
    parser.add_argument("--no-docs", action="store_true")
    args = parser.parse_args(argv)
    folder = BENCH_HOME / "serving-methods"
    folder.mkdir(parents=True, exist_ok=True)
    use_home(folder)
    use_local_models()
    url = f"sqlite:///{folder / 'hopkit.db'}"
    store = Store(DBConnection(url).get_session_factory())
    if args.dataset not in store.datasets():
        store.add_corpus(pool_corpus(args.dataset, load_dataset(args.dataset, sample_path(args.dataset))))
    saved = {"command": command_line(), "dataset": args.dataset, "limit": args.limit, "llm": args.llm,
             "cells": serving_load.compare_methods(url, args.dataset, args.methods, args.llm, args.limit, folder)}
    serving_load.save(RESULTS.parent / "serving_methods.json", saved)
    if not args.no_docs:
        write_section("serving-methods", serving_load.methods_section(saved))
        write_section("serving-methods", serving_load.methods_section(saved), ROOT / "docs" / "serving.md")


if __name__ == "__main__":
    if sys.argv[1:2] == ["retrieval"]:
        retrieval(sys.argv[2:])
    else:
        main()
