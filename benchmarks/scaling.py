"""Scaling: questions per second against the number of workers, threads and Ray, beside the ideal line.

The model is a loopback OpenAI-compatible server that answers every request after a fixed
delay (``--delay``, 200 ms by default), so the ideal rate with W workers is W / (calls per
question × delay) and what falls short of it is hopkit's own cost: retrieval, prompts,
the store, and the executor. The corpus is synthetic (``--questions`` people, each born
in a town of their own), stored in PostgreSQL (``--db``, the server scripts/start-postgres.sh
starts) so that Ray workers can write to it too.

It also measures hopkit's overhead per question (the same run with an instant server and
one worker) and the store's write rate with 1 and 32 concurrent writers.

    bash scripts/start-postgres.sh
    PYTHONPATH=src .venv/bin/python -m benchmarks.scaling --db postgresql+psycopg://hopkit:hopkit@127.0.0.1:5433/hopkit_test

Each cell is saved in benchmarks/results/scaling.json as soon as it is measured (a rerun
skips those), and the ``scaling`` section of docs/benchmarks.md and docs/img/scaling.png
are written from that file.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import logging
import multiprocessing
import pstats
import re
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import hopkit
from hopkit.campaign.page_sections import command_line, markdown_table, write_section
from hopkit.campaign.environment import use_home, use_model_server
from hopkit.executors.choice import ExecutorChoice
from hopkit.llm.testing_server import Fault, serve_fake_openai
from hopkit.pipelines.generation.registered import method_pipeline
from hopkit.pipelines.retrieval.bm25 import BM25RetrievalPipeline
from hopkit.records import Corpus, Paragraph, Query
from hopkit.store.connection import DBConnection
from hopkit.store.records import QueryResult, RunSpec
from hopkit.store.store import Store
from hopkit.usage import Usage

# This script's repository: its results and page, whichever hopkit it measures (PYTHONPATH=/tmp/before/src).
ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "scaling.json"
BEFORE = RESULTS.with_name("scaling_1f65d69.json")  # the cells before issue 52
PLOT = ROOT / "docs" / "img" / "scaling.png"
DATASET = "scaling"
PROFILED = 300  # questions of an own-time run
PERSON = re.compile(r"Where was person (\d+) born\?")
log = logging.getLogger("scaling")


def reply(prompt: str) -> str:
    """The model: first the fact (one CoT sentence), then, once the prompt holds it, the answer."""
    numbers = PERSON.findall(prompt)
    person = numbers[-1] if numbers else "?"
    fact = f"Person {person} was born in Ville{person}."
    return f"So the answer is: Ville{person}." if fact in prompt else f"{fact} So the answer is: Ville{person}."


def synthetic_corpus(count: int) -> Corpus:
    paragraphs = tuple(Paragraph(i, f"Person {i}", f"Person {i} was born in Ville{i}, a town by a river.")
                       for i in range(count))
    queries = tuple(Query(id=f"q{i}", text=f"Where was person {i} born?", answers=(f"Ville{i}",))
                    for i in range(count))
    return Corpus(DATASET, paragraphs, queries)


def pipeline(method: str, session_factory: Any) -> Any:
    retrieval = BM25RetrievalPipeline(session_factory, "bm25", DATASET)
    return method_pipeline(method)(session_factory, f"{method}-scaling", "openai-compatible", retrieval,
                                   dataset=DATASET, batch_size=1)


def measure(method: str, executor: str, workers: int, args: argparse.Namespace, session_factory: Any,
            delay: float) -> dict[str, Any]:
    """One cell: the whole run from a fresh start, its rate and its calls per question."""
    store = Store(session_factory)
    facade = pipeline(method, session_factory)
    facade.batch_size = workers
    run_id = facade.run_spec().run_id
    if any(r.run_id == run_id for r in store.runs(DATASET)):
        store.delete_run(run_id)
    with server_process(delay) as server:
        use_model_server(server.base_url, "fake-model")
        choice = (ExecutorChoice("ray", workers=workers, cpus_per_worker=args.cpus / workers) if executor == "ray"
                  else None)
        started, started_monotonic = time.perf_counter(), time.monotonic()
        outcome = facade.run(limit=args.questions, progress=False, executor=choice)
        seconds = time.perf_counter() - started
    sent = sorted(server.sent_at)
    calls = server.requests / args.questions
    steady = args.questions / (sent[-1] - sent[0]) if len(sent) > 1 and sent[-1] > sent[0] else float("nan")
    ideal = workers / (calls * delay) if delay else float("nan")
    return {"method": method, "executor": executor, "workers": workers, "delay": delay, "questions": args.questions,
            "commit": args.label or hopkit_commit(),
            "failed": outcome["failed"], "seconds": round(seconds, 2), "rate": round(args.questions / seconds, 2),
            "until_first_answer": round(sent[0] - started_monotonic, 2) if sent else None,
            "steady_rate": round(steady, 2), "calls_per_question": round(calls, 2),
            "ideal_rate": round(ideal, 2)}


@dataclass
class ServedElsewhere:
    """The model server in a process of its own: its address, then what it counted."""

    base_url: str
    requests: int = 0
    sent_at: list[float] = field(default_factory=list)


def serve(connection: Connection, delay: float) -> None:
    """The server process: answer until told to stop, then send back the requests and answer times."""
    faults = (lambda number, prompt: Fault("delay", seconds=delay)) if delay else ()
    with serve_fake_openai(reply, faults=faults) as server:
        connection.send(server.base_url)
        connection.recv()
        connection.send((len(server.requests), [a.sent_at for a in server.answered]))


@contextmanager
def server_process(delay: float) -> Iterator[ServedElsewhere]:
    """A fake model server answering after ``delay`` seconds, in a process of its own as a real one
    is, so that none of its work is counted as hopkit's."""
    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe()
    process = context.Process(target=serve, args=(theirs, delay), daemon=True)
    process.start()
    served = ServedElsewhere(ours.recv())
    try:
        yield served
    finally:
        ours.send("stop")
        served.requests, served.sent_at = ours.recv()  # monotonic times: one clock for every process
        process.join(timeout=10)


def own_time(method: str, args: argparse.Namespace, session_factory: Any) -> dict[str, Any]:
    """hopkit's own time per question: one worker, a server that answers at once, after a warm-up run
    (the index built, the connections open); then the same run under the profiler, split by part."""
    def run(questions: int) -> dict[str, Any]:
        return measure(method, "threads", 1, argparse.Namespace(**{**vars(args), "questions": questions}),
                       session_factory, 0.0)

    run(5)
    cell = run(PROFILED)
    profiler = cProfile.Profile()
    profiler.enable()
    profiled = run(PROFILED)
    profiler.disable()
    return {"method": method, "commit": args.label or hopkit_commit(), "questions": PROFILED,
            "ms_per_question": round(1000 * cell["seconds"] / PROFILED, 2),
            "calls_per_question": cell["calls_per_question"],
            "shares": time_shares(pstats.Stats(profiler), profiled["seconds"])}


def time_shares(stats: pstats.Stats, seconds: float) -> dict[str, float]:
    """Each part's share of a profiled run's wall time, from the profiler's cumulative times."""
    def cumulative(path: str, name: str) -> float:
        return sum(row[3] for (file, _, function), row in stats.stats.items()  # type: ignore[attr-defined]
                   if file.endswith(path) and function == name)

    model = cumulative("hopkit/llm/openai_compat.py", "_request")
    retrieval = cumulative("hopkit/retrieval/meter.py", "retrieve")
    answering = cumulative("hopkit/executors/answers.py", "answer_one")
    storing = cumulative("hopkit/store/store.py", "record_result")
    taking = cumulative("hopkit/executors/shared_questions.py", "next")
    parts = {"model call": model, "retrieval": retrieval, "rest of the method": answering - model - retrieval,
             "storing the result": storing, "taking the question": taking,
             "run start and end": seconds - answering - storing - taking}
    return {part: round(value / seconds, 3) for part, value in parts.items()}


def hopkit_commit() -> str:
    """The commit of the hopkit checkout imported ("" outside a git checkout)."""
    folder = Path(hopkit.__file__).resolve().parent
    done = subprocess.run(["git", "-C", str(folder), "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                          check=False)
    return done.stdout.strip()


def write_rate(session_factory: Any, writers: int, per_writer: int) -> dict[str, Any]:
    """Results per second that ``writers`` threads store at once (each its own results)."""
    store = Store(session_factory)

    run = store.ensure_run(RunSpec(name=f"writes-{writers}", method="nor", dataset=DATASET,
                                   config={"writers": writers, "at": time.time()}))

    def write(number: int) -> None:
        for i in range(per_writer):
            store.record_result(run.run_id, QueryResult(query_id=f"q{number * per_writer + i}", prediction="x",
                                                        usage=Usage()))

    threads = [threading.Thread(target=write, args=(n,)) for n in range(writers)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - started
    store.delete_run(run.run_id)
    return {"writers": writers, "results": writers * per_writer, "seconds": round(seconds, 2),
            "per_second": round(writers * per_writer / seconds, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", required=True, help="PostgreSQL URL (Ray workers write to it)")
    parser.add_argument("--questions", type=int, default=2000)
    parser.add_argument("--delay", type=float, default=0.2, help="seconds the server waits before each answer")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4, 8, 16, 32])
    parser.add_argument("--methods", nargs="+", default=["oner", "ircot"])
    parser.add_argument("--executors", nargs="+", default=["threads", "ray"])
    parser.add_argument("--cpus", type=float, default=2.0, help="CPUs the Ray workers share")
    parser.add_argument("--write-only", action="store_true", help="only write the section from the saved cells")
    parser.add_argument("--own-time-only", action="store_true",
                        help="measure only hopkit's own time per question (of the hopkit imported)")
    parser.add_argument("--label", help="the own-time rows' name for the hopkit measured (default: its commit)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    use_home(Path(tempfile.mkdtemp(prefix="hopkit-scaling-")))
    saved = json.loads(RESULTS.read_text()) if RESULTS.exists() else {"cells": [], "writes": [], "overhead": []}
    if not args.write_only:
        session_factory = DBConnection(args.db).get_session_factory()
        store = Store(session_factory)
        if DATASET not in store.datasets():
            store.add_corpus(synthetic_corpus(args.questions))
        commit = args.label or hopkit_commit()
        done = {(c["method"], c["executor"], c["workers"], c["questions"], c["delay"], c["commit"])
                for c in saved["cells"]}
        for method in args.methods:
            if not any(o["method"] == method and o["commit"] == (args.label or hopkit_commit())
                       for o in saved["overhead"]):
                saved["overhead"].append(own_time(method, args, session_factory))
                save(saved, args)
            if args.own_time_only:
                continue
            for executor in args.executors:
                for workers in args.workers:
                    if (method, executor, workers, args.questions, args.delay, commit) in done:
                        continue
                    cell = measure(method, executor, workers, args, session_factory, args.delay)
                    print(json.dumps(cell), flush=True)
                    saved["cells"].append(cell)
                    save(saved, args)
        if not saved["writes"]:
            saved["writes"] = [write_rate(session_factory, n, 200) for n in (1, 32)]
            save(saved, args)
    write(saved)


def save(saved: dict[str, Any], args: argparse.Namespace) -> None:
    saved["command"] = command_line()
    RESULTS.write_text(json.dumps(saved, indent=1) + "\n", encoding="utf-8")


def plot(saved: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    latest = {(c["method"], c["executor"], c["workers"]): c for c in saved["cells"]}  # the last measured of each
    cells_shown = list(latest.values())
    methods = sorted({c["method"] for c in cells_shown})
    if not methods:
        return
    figure, axes = plt.subplots(1, len(methods), figsize=(5.5 * len(methods), 4.2), squeeze=False)
    for axis, method in zip(axes[0], methods):
        cells = [c for c in cells_shown if c["method"] == method]
        for executor, marker in (("threads", "o"), ("ray", "s")):
            shown = sorted((c for c in cells if c["executor"] == executor), key=lambda c: c["workers"])
            if shown:
                axis.plot([c["workers"] for c in shown], [c["rate"] for c in shown], marker=marker,
                          label=f"{executor} (whole run)")
        ideal = sorted({(c["workers"], c["ideal_rate"]) for c in cells if c["executor"] == "threads"})
        if ideal:
            axis.plot([w for w, _ in ideal], [r for _, r in ideal], "k--", label="ideal: workers / (calls × delay)")
        axis.set_xscale("log", base=2)
        axis.set_yscale("log", base=2)
        axis.set_xlabel("workers")
        axis.set_ylabel("questions per second")
        delay = cells[0]["delay"]
        asked = sorted({c["questions"] for c in cells})
        axis.set_title(f"{method}: {'/'.join(map(str, asked))} questions a run, server delay {delay * 1000:.0f} ms")
        axis.grid(True, which="both", alpha=0.3)
        axis.legend(fontsize=8)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)


def section(saved: dict[str, Any], image: Path) -> str:
    rows = [f"| {c['commit']} | {c['method']} | {c['executor']} | {c['workers']} | {c['questions']} | "
            f"{c['calls_per_question']} | {c['seconds']} | "
            f"{c.get('until_first_answer')} | {c['rate']} | {c['steady_rate']} | {c['ideal_rate']} | "
            f"{100 * c['rate'] / c['ideal_rate']:.0f}% | {100 * c['steady_rate'] / c['ideal_rate']:.0f}% | "
            f"{c['failed']} |"
            for c in sorted(saved["cells"], key=lambda c: (c["method"], c["executor"], c["workers"], c["questions"]))]
    writes = [f"| {w['writers']} | {w['results']} | {w['seconds']} | {w['per_second']} |" for w in saved["writes"]]
    latest = saved["cells"][-1]["commit"] if saved["cells"] else ""
    alone = [one_worker_row(saved, o) for o in saved["overhead"] if o["commit"] == latest]
    before = json.loads(BEFORE.read_text()) if BEFORE.exists() else {"cells": []}
    return "\n\n".join([
        "## Scaling: workers, threads and Ray, against a server with a fixed delay",
        f"Command: `{saved.get('command', '')}` (cells saved in `benchmarks/results/scaling.json`; "
        f"those before issue 52 in `{BEFORE.relative_to(ROOT)}`).",
        "A loopback OpenAI-compatible server, in a process of its own, answers every request after a fixed "
        "delay; the ideal rate is workers / (calls per question × delay). A run's seconds include starting its "
        "workers (Ray: new processes, each rebuilding the method); \"steady\" is the rate between the first and "
        f"the last answer. hopkit measured: commit {latest}. Store: PostgreSQL on this machine; 2 cores shared "
        "by hopkit, the server and the store.",
        f"![questions per second against workers]({image})",
        markdown_table(["hopkit", "method", "executor", "workers", "questions", "calls/q", "seconds",
                        "s to first answer", "q/s",
                        "steady q/s", "ideal q/s", "of ideal", "steady of ideal", "failed"], rows),
        "### hopkit's own time per question",
        "One worker, a server that answers at once, after a 5-question warm-up run (the index built, the "
        f"connections open); {PROFILED} questions. Each part's share comes from the same run under cProfile "
        "(cumulative times; the profiler slows every part, so the shares are of the profiled run, and the "
        "milliseconds are those shares of the unprofiled time). \"model call\" is the client's side of the "
        "HTTP round trip and the server's reply; \"rest of the method\" is prompts, parsing and traces. "
        "The rows of another commit were measured by this script run against that commit's source "
        "(`git worktree add /tmp/before COMMIT`, then `PYTHONPATH=/tmp/before/src .venv/bin/python -m "
        "benchmarks.scaling --db URL --own-time-only`); the row \"fake server sending at once\" with that "
        "worktree's fake server set to send with TCP_NODELAY, as it now does, and `--label` naming it. Cells and "
        "rows labelled `COMMIT-paired` were made by `bash benchmarks/scaling_paired.sh BEFORE URL`: each goal cell "
        "run for the earlier commit and then for the checkout, back to back (the own-time row comes first in each "
        "method's first run); rows labelled `-own1`, `-own2` are the same own-time runs repeated back to back "
        "(`--own-time-only --methods ircot --label ...`), for the spread between runs.",
        markdown_table(["hopkit", "method", "calls/q", "ms per question", *PARTS], own_time_rows(saved)),
        "### Before and after, the goal cells",
        markdown_table(["method", "executor", "workers", "questions", "s to first answer", "of ideal (whole run)",
                        "of ideal (steady)"], goal_rows(before["cells"], "1f65d69") + goal_rows(saved["cells"])),
        "One worker: the ideal rate less hopkit's own time, 1 / (calls × delay + own time), against what the "
        "one-worker runs measured:",
        markdown_table(["method", "predicted q/s", "threads q/s", "Ray q/s"], [row for row in alone if row]),
        "The store's write rate (PostgreSQL, one result per transaction, each writer a thread):",
        markdown_table(["writers", "results", "seconds", "results/s"], writes),
    ])


PARTS = ("model call", "retrieval", "rest of the method", "storing the result", "taking the question",
         "run start and end")


def own_time_rows(saved: dict[str, Any]) -> list[str]:
    rows = []
    for own in saved["overhead"]:
        shares = own.get("shares", {})
        parts = [f"{own['ms_per_question'] * shares[p]:.2f} ({100 * shares[p]:.0f}%)" if p in shares else ""
                 for p in PARTS]
        rows.append(f"| {own.get('commit', '')} | {own['method']} | {own['calls_per_question']} | "
                    f"{own['ms_per_question']} | {' | '.join(parts)} |")
    return rows


def goal_rows(cells: list[dict[str, Any]], commit: str | None = None) -> list[str]:
    """The cells of 16 and 32 workers, as a before/after table's rows (``commit``: of cells that do not name theirs)."""
    return [f"| {c['method']} | {c['executor']} | {c['workers']} | {c['questions']} (at {c.get('commit', commit)}) | "
            f"{c.get('until_first_answer')} | {100 * c['rate'] / c['ideal_rate']:.0f}% | "
            f"{100 * c['steady_rate'] / c['ideal_rate']:.0f}% |"
            for c in sorted(cells, key=lambda c: (c["method"], c["executor"], c["workers"], c["questions"]))
            if c["workers"] >= 16]


def one_worker_row(saved: dict[str, Any], overhead: dict[str, Any]) -> str:
    """A method's one-worker rate as its cost per question predicts it, beside the measured ones."""
    single = {c["executor"]: c for c in saved["cells"] if c["method"] == overhead["method"] and c["workers"] == 1}
    if not single:
        return ""
    delay = next(iter(single.values()))["delay"]
    predicted = 1 / (overhead["calls_per_question"] * delay + overhead["ms_per_question"] / 1000)
    measured = [str(single[e]["rate"]) if e in single else "" for e in ("threads", "ray")]
    return f"| {overhead['method']} | {predicted:.2f} | {' | '.join(measured)} |"


def write(saved: dict[str, Any]) -> None:
    plot(saved, PLOT)
    write_section("scaling", section(saved, PLOT.relative_to(ROOT / "docs")), ROOT / "docs" / "benchmarks.md")


if __name__ == "__main__":
    main()
