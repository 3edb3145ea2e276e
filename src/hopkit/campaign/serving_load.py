"""Load on ``hopkit serve-retrieval``: queries per second and latency under concurrent clients, batched and not.

For each retrieval config, the server is started twice (``hopkit serve-retrieval`` in a process of its own):
batching on (its defaults) and off (``--max-batch 1 --batch-wait-ms 0``: one query at a time, the pattern of
a FastAPI server answering each request alone). Against each, ``clients`` concurrent loopback clients send
Search-R1 requests (one query, ``topk`` 3) back to back for ``seconds`` seconds, in one asyncio process,
each on its own kept-alive connection: a client sends its next request when its last is answered. Reported per cell: requests answered per second,
p50 and p99 latency, failed requests (any status but 200, or no answer), 503s among them, and the mean
batch the server searched (from its ``/health``). After the load, the memory of the server's processes
(RSS and PSS, :mod:`benchmarks.big_corpus` explains PSS).

Used by ``python -m benchmarks.big_corpus serve``; its results go to ``benchmarks/results/serving_load.json``
and the ``serving-load`` sections of docs/benchmarks.md and docs/serving.md.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import httpx

from hopkit.campaign.page_sections import markdown_table

BATCHING = {"batched": [], "unbatched": ["--max-batch", "1", "--batch-wait-ms", "0"]}
START_SECONDS = 1800  # the longest a server may take to load its index (or build it, the first time)


def start_server(db: str, dataset: str, retrieval: str, folder: Path, extra: Sequence[str]
                 ) -> tuple[subprocess.Popen[str], str]:
    """``hopkit serve-retrieval`` in ``folder`` (its ``configs/``) on a free port; the process and its base URL."""
    process = subprocess.Popen([sys.executable, "-c", "import sys; from hopkit.cli import main; sys.exit(main())",
                                "--db", db, "serve-retrieval", "--dataset", dataset, "--retrieval", retrieval,
                                "--port", "0", "--quiet", "--max-queue", "100000", *extra],
                               cwd=folder, stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline() if process.stdout is not None else ""
    if " on http://" not in line:
        process.kill()
        raise SystemExit(f"serve-retrieval {retrieval} did not start: {line!r}")
    base = line.split(" on ", 1)[1].split()[0]
    deadline = time.monotonic() + START_SECONDS
    while True:  # workers load their index before they answer
        try:
            if httpx.get(f"{base}/health", timeout=30).status_code == 200:
                return process, base
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            raise SystemExit(f"serve-retrieval {retrieval} never answered /health")
        time.sleep(0.5)


def _processes(pid: int) -> list[int]:
    """``pid`` and its child processes (Linux)."""
    children = Path(f"/proc/{pid}/task/{pid}/children")
    found = [int(child) for child in children.read_text().split()] if children.exists() else []
    return [pid, *found]


def memory(pid: int) -> dict[str, Any]:
    """RSS and PSS of the server's processes, in MiB."""
    each = []
    for process in _processes(pid):
        fields = {}
        for line in Path(f"/proc/{process}/smaps_rollup").read_text().splitlines()[1:]:
            key, value = line.split(":", 1)
            fields[key] = int(value.split()[0]) / 1024
        each.append({"pid": process, "rss_mib": fields["Rss"], "pss_mib": fields["Pss"]})
    return {"processes": each, "pss_mib_total": sum(p["pss_mib"] for p in each)}


async def _exchange(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes) -> int:
    """One request on a kept-alive connection; the reply's status (its body read and dropped)."""
    writer.write(request)
    status = int((await reader.readline()).split()[1])
    length = 0
    while (line := await reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    await reader.readexactly(length)
    return status


async def _client(host: str, port: int, queries: Sequence[str], start: int, until: float, latencies: list[float],
                  statuses: dict[str, int]) -> None:
    """One closed-loop client on its own kept-alive connection (a reconnect after a failure). HTTP/1.1 is written
    by hand here, as the load's side only: httpx spends more CPU per request than the server measured does."""
    at = start
    connection: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
    while time.monotonic() < until:
        body = json.dumps({"queries": [queries[at % len(queries)]], "topk": 3, "return_scores": True}).encode()
        request = (f"POST /retrieve HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                   f"Content-Length: {len(body)}\r\n\r\n").encode() + body
        at += 1
        began = time.perf_counter()
        try:
            if connection is None:
                connection = await asyncio.open_connection(host, port)
            status = str(await _exchange(*connection, request))
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError) as exc:
            status = type(exc).__name__
            if connection is not None:
                connection[1].close()
            connection = None
        statuses[status] = statuses.get(status, 0) + 1
        if status == "200":
            latencies.append(time.perf_counter() - began)
    if connection is not None:
        connection[1].close()


async def _load(base: str, queries: Sequence[str], clients: int, seconds: float) -> dict[str, Any]:
    latencies: list[float] = []
    statuses: dict[str, int] = {}
    host, port = base.removeprefix("http://").rsplit(":", 1)
    until = time.monotonic() + seconds
    began = time.perf_counter()
    await asyncio.gather(*(_client(host, int(port), queries, n * 7919, until, latencies, statuses)
                           for n in range(clients)))
    elapsed = time.perf_counter() - began
    latencies.sort()
    answered = len(latencies)

    def quantile(q: float) -> float | None:
        return 1000 * latencies[min(answered - 1, int(q * answered))] if answered else None

    return {"clients": clients, "seconds": elapsed, "answered": answered, "qps": answered / elapsed,
            "p50_ms": quantile(0.5), "p99_ms": quantile(0.99), "failed": sum(statuses.values()) - answered,
            "status_503": statuses.get("503", 0), "statuses": statuses}


def _batching(base: str) -> dict[str, int]:
    batching = httpx.get(f"{base}/health", timeout=30).json()["batching"]
    return {"batches": int(batching["batches"]), "searched": int(batching["searched"])}


def measure(db: str, dataset: str, retrievals: Sequence[str], folder: Path, queries: Sequence[str],
            clients: Sequence[int], seconds: float, workers: int) -> list[dict[str, Any]]:
    """Every (retrieval, batching, clients) cell, each a fresh load on a server started for its (retrieval,
    batching); the server's memory once per server, after its last load."""
    cells = []
    for retrieval in retrievals:
        for batching, extra in BATCHING.items():
            process, base = start_server(db, dataset, retrieval, folder, [*extra, "--workers", str(workers)])
            try:
                for count in clients:
                    print(f"{retrieval}, {batching}, {count} clients ...", file=sys.stderr, flush=True)
                    before = _batching(base)  # with several workers, one worker's count: a sample
                    cell = asyncio.run(_load(base, queries, count, seconds))
                    after = _batching(base)
                    searched, batches = after["searched"] - before["searched"], after["batches"] - before["batches"]
                    cells.append({"retrieval": retrieval, "batching": batching, "workers": workers, **cell,
                                  "mean_batch": searched / batches if batches else None})
                    print(f"  {cells[-1]}", file=sys.stderr, flush=True)
                cells[-1]["memory"] = memory(process.pid)
            finally:
                process.terminate()
                process.wait(60)
    return cells


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


def section(saved: dict[str, Any]) -> str:
    """The ``serving-load`` section: the table of cells, the speed-up at 64 clients, the memory."""
    rows = ["| " + " | ".join([
        cell["retrieval"], cell["batching"], str(cell["clients"]), f"{cell['qps']:,.0f}", _ms(cell["p50_ms"]),
        _ms(cell["p99_ms"]), f"{cell['failed']:,}", f"{cell['status_503']:,}",
        "-" if cell["mean_batch"] is None else f"{cell['mean_batch']:.1f}"]) + " |" for cell in saved["cells"]]
    lines = [f"Load on `hopkit serve-retrieval` over `{saved['dataset']}` ({saved['passages']:,} passages), "
             f"{saved['workers']} worker process(es), {saved['seconds']:g} s of closed-loop Search-R1 requests "
             "(one query, topk 3) per cell from one asyncio client process on the same machine, which shares its "
             f"{saved['cpus']} CPU cores with the server.", "",
             markdown_table(["retrieval", "batching", "clients", "queries/s", "p50 ms", "p99 ms", "failed", "503",
                             "mean batch"], rows), ""]
    for retrieval in dict.fromkeys(cell["retrieval"] for cell in saved["cells"]):
        at = {cell["batching"]: cell for cell in saved["cells"] if cell["retrieval"] == retrieval
              and cell["clients"] == max(c["clients"] for c in saved["cells"] if c["clients"] <= 64)}
        if {"batched", "unbatched"} <= set(at) and at["unbatched"]["qps"]:
            lines.append(f"- {retrieval}: batched {at['batched']['qps'] / at['unbatched']['qps']:.2f}x the unbatched "
                         f"throughput at {at['batched']['clients']} clients.")
        for cell in saved["cells"]:
            if cell["retrieval"] == retrieval and "memory" in cell:
                each = ", ".join(f"{p['pss_mib']:,.0f}" for p in cell["memory"]["processes"])
                lines.append(f"- {retrieval} ({cell['batching']}) memory after the load: PSS per process {each} MiB, "
                             f"{cell['memory']['pss_mib_total']:,.0f} MiB in all.")
    lines += ["", f"Command: `{saved['command']}`"]
    return "\n".join(lines)


def save(out: Path, saved: dict[str, Any]) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(saved, indent=1) + "\n", encoding="utf-8")


def compare_methods(store_url: str, dataset: str, methods: Sequence[str], llm: str, limit: int,
                    folder: Path) -> list[dict[str, Any]]:
    """Each method over ``dataset`` with BM25 in process, then over ``hopkit serve-retrieval`` serving the same
    BM25 (``protocol: hopkit``): the answers and retrieved ids compared, and the seconds each question took and
    spent retrieving. Runs of an earlier measurement are deleted first, so that every question is timed."""
    from hopkit.pipelines.generation.registered import method_pipeline
    from hopkit.pipelines.retrieval.bm25 import BM25RetrievalPipeline
    from hopkit.pipelines.retrieval.remote import RemoteRetrievalPipeline
    from hopkit.store.connection import DBConnection
    from hopkit.store.store import Store

    factory = DBConnection(store_url).get_session_factory()
    store = Store(factory)
    process, base = start_server(store_url, dataset, "bm25", folder, [])
    cells = []
    try:
        for method in methods:
            runs = {}
            for variant, retrieval in (("in-process", BM25RetrievalPipeline(factory, "bm25", dataset)),
                                       ("served", RemoteRetrievalPipeline(factory, "remote", dataset, url=base))):
                pipeline = method_pipeline(method)(factory, f"{method}-{variant}", llm, retrieval, dataset=dataset)
                run_id = pipeline.run_spec().run_id
                if any(run.run_id == run_id for run in store.runs(dataset)):
                    store.delete_run(run_id)
                print(f"{method}, retriever {variant} ...", file=sys.stderr, flush=True)
                pipeline.run(limit=limit, progress=True)
                runs[variant] = {r.query_id: r for r in store.results(run_id)}
            local, served = runs["in-process"], runs["served"]
            for variant, results in runs.items():  # a failed question (an empty answer, say) retrieved all the same
                asked = list(results.values())
                retrieving = [r.usage.components["retrieval"] for r in asked if "retrieval" in r.usage.components]
                cells.append({
                    "method": method, "variant": variant, "questions": len(asked),
                    "failed": sum(r.error is not None for r in asked),
                    "seconds_per_question": sum(r.usage.total_seconds for r in asked) / max(1, len(asked)),
                    "retrieval_seconds_per_question": sum(c.seconds for c in retrieving) / max(1, len(asked)),
                    "retrievals_per_question": sum(c.calls for c in retrieving) / max(1, len(asked)),
                    "same_answers": sum(served[q].prediction == r.prediction for q, r in local.items() if q in served),
                    "same_retrieved": sum(served[q].chunk_ids == r.chunk_ids for q, r in local.items() if q in served)})
    finally:
        process.terminate()
        process.wait(60)
    return cells


def methods_section(saved: dict[str, Any]) -> str:
    """The ``serving-methods`` section: methods over a served retriever against the same one in process."""
    rows = [f"| {c['method']} | {c['variant']} | {c['questions']} | {c['failed']} | {c['seconds_per_question']:.2f} | "
            f"{1000 * c['retrieval_seconds_per_question']:.1f} | {c['retrievals_per_question']:.1f} | "
            f"{c['same_answers']}/{c['questions']} | {c['same_retrieved']}/{c['questions']} |" for c in saved["cells"]]
    return "\n".join([
        f"{', '.join(dict.fromkeys(c['method'] for c in saved['cells']))} on {saved['dataset']} (first "
        f"{saved['limit']} questions) with {saved['llm']} in process, BM25 in process and behind "
        "`hopkit serve-retrieval` on the same machine (one worker, batching on, `protocol: hopkit`).", "",
        markdown_table(["method", "retriever", "questions", "failed", "s / question", "retrieval ms / question",
                        "retrievals / question", "answers as in-process", "retrieved ids as in-process"], rows),
        "", f"Command: `{saved['command']}`"])
