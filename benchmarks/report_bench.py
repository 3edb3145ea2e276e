"""Report benchmark: ``hopkit report`` (tables, plots and the HTML report) on 10,000 questions x 5 runs.

Builds a synthetic SQLite store (:func:`fill_store`: scripted results in the methods' trace shapes,
no model), then does what ``hopkit report`` does, timing each part: score the runs, read their results
for the HTML report, write every file through the staging folder. It reports the time, the peak
memory and the sizes (whole folder, the explorer's index, the question chunks), and, when Chromium and
Playwright are installed, how long the explorer takes in headless Chromium to list the questions and
to open one of the last page. Run from the project root (the machine may be busy: nice it):

    nice -n 19 .venv/bin/python -m benchmarks.report_bench

It writes the ``report`` section of docs/benchmarks.md.

Two more modes check the report's anytime-valid column (:mod:`hopkit.evaluation.anytime`):

    nice -n 10 .venv/bin/python -m benchmarks.report_bench --anytime-simulation
        10,000 simulated pairs of runs looked at after every question up to 1,000: the share of no-difference
        sequences ever declared decided (beside the naive repeated paired test) and the coverage of true
        differences of 5, 10 and 20 points; writes the ``anytime-validity`` section of docs/benchmarks.md and
        docs/img/anytime-validity.png.
    HOPKIT_DATA_DIR=../shared/data nice -n 10 .venv/bin/python -m benchmarks.report_bench --anytime-saved-runs
        the claims pages' comparisons on the saved runs, replayed as sequences: the n at which each would have
        been decided; writes the ``anytime-saved-runs`` section of docs/results.md.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import json
import os
import platform
import random
import resource
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from hopkit.campaign import anytime_saved_runs, anytime_validity
from hopkit.campaign.environment import ROOT, use_home
from hopkit.campaign.page_sections import command_line, write_section
from hopkit.campaign.qa_sections import restored_store
from hopkit.campaign.environment import chromium
from hopkit.report.files import write_report
from hopkit.records import Corpus, Paragraph, Query
from hopkit.report.html import collect_report
from hopkit.scoring_runs import score_run
from hopkit.store.records import QueryResult, RunSpec
from hopkit.store.store import Store
from hopkit.usage import Usage


DATASET = "synthetic"
PARAGRAPHS_PER_QUESTION = 6
_WORDS = ("river town founded company born province album performer railway bridge church museum "
          "industrialist mayor brewery glassworks foundry assembly capital harbour valley station").split()
_NAMES = ("Velmora Orrimond Pellander Halvicke Quorrin Tolloway Scarrowby Greyhallow Brannock Caddow "
          "Hollowmere Dunmarrow Sallowhythe Kessary Quillstead Tarsk Orl Marrick").split()

Trace = dict[str, Any]


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS + _NAMES) for _ in range(words)).capitalize() + "."


def synthetic_corpus(n_questions: int, seed: int = 0) -> Corpus:
    """``n_questions`` questions, each with six paragraphs of its own (the first two gold).

    Args:
        n_questions: how many questions.
        seed: the random seed.

    Returns:
        The corpus (paragraph ids from 0).
    """
    rng = random.Random(seed)
    paragraphs: list[Paragraph] = []
    queries: list[Query] = []
    for i in range(n_questions):
        first = len(paragraphs)
        for j in range(PARAGRAPHS_PER_QUESTION):
            title = f"{rng.choice(_NAMES)} {rng.choice(_WORDS).title()} {i}-{j}"
            paragraphs.append(Paragraph(first + j, title, _text(rng, rng.randint(60, 110))))
        answer = f"{rng.choice(_NAMES)} {rng.choice(['Cross', 'Ford', 'Hill', 'Bay'])}"
        queries.append(Query(f"q{i:05d}", f"Where was the founder of {rng.choice(_NAMES)} "
                             f"{rng.choice(_WORDS)} number {i} born?", (answer,), (first, first + 1)))
    return Corpus(DATASET, tuple(paragraphs), tuple(queries))


def _step(sid: int, kind: str, parent: int | None, **fields: Any) -> dict[str, Any]:
    step = {"id": sid, "parent": parent, "kind": kind, "input": None, "output": None, "paragraph_ids": [],
            "scores": [], "llm_calls": 0, "extra": {}}
    step.update(fields)
    return step


def _typed(steps: list[dict[str, Any]], citations: list[dict[str, Any]] | None = None) -> Trace:
    return {"typed_trace": {"schema_version": 1, "steps": steps, "citations": citations or []}}


def _hits(rng: random.Random, own: list[int], n_paragraphs: int, k: int) -> list[int]:
    pool = own + [rng.randrange(n_paragraphs) for _ in range(k)]
    return list(dict.fromkeys(rng.sample(pool, k)))


def _ircot(rng: random.Random, q: Query, own: list[int], n: int, answer: str) -> Trace:
    steps, kept = [], []
    sentence = q.text
    for hop in range(3):
        hits = _hits(rng, own, n, 4)
        dropped = [{"paragraph_id": pid, "reason": "duplicate"} for pid in hits if pid in kept]
        new = [pid for pid in hits if pid not in kept]
        kept += new
        steps.append(_step(len(steps) + 1, "retrieve", len(steps) or None, input=sentence,
                           output={"kept": new, "dropped": dropped, "skipped": None}, paragraph_ids=hits,
                           scores=[round(rng.uniform(1, 9), 3) for _ in hits], extra={"k": 4}))
        sentence = _text(rng, 12) if hop < 2 else f"So the answer is: {answer}."
        steps.append(_step(len(steps) + 1, "reason", len(steps), output=sentence, paragraph_ids=list(kept),
                           llm_calls=1, extra={"generation": sentence + " " + _text(rng, 6), "demonstrations": 2,
                                               "stop_reason": "answer" if hop == 2 else None}))
    steps.append(_step(len(steps) + 1, "read", len(steps), input=q.text, output=answer, paragraph_ids=list(kept),
                       llm_calls=1, extra={"generation": answer, "reader": "direct", "context": "own"}))
    return {"cot_sentences": [s["output"] for s in steps if s["kind"] == "reason"], **_typed(steps)}


def _oner(rng: random.Random, q: Query, own: list[int], n: int, answer: str) -> Trace:
    hits = _hits(rng, own, n, 5)
    return _typed([_step(1, "retrieve", None, input=q.text, paragraph_ids=hits,
                         scores=[round(rng.uniform(1, 9), 3) for _ in hits], extra={"k": 5}),
                   _step(2, "read", 1, input=q.text, output=answer, paragraph_ids=hits, llm_calls=1,
                         extra={"generation": answer})])


def _nor(rng: random.Random, q: Query, own: list[int], n: int, answer: str) -> Trace:
    return _typed([_step(1, "read", None, input=q.text, output=answer, llm_calls=1, extra={"generation": answer})])


def _migres(rng: random.Random, q: Query, own: list[int], n: int, answer: str) -> Trace:
    hits = _hits(rng, own, n, 2)
    fact = _text(rng, 8)
    outcome = {"kept": [{"paragraph_id": hits[0], "relevance": 5.0, "outcome": "kept_whole"}],
               "dropped": [{"paragraph_id": pid, "relevance": -2.0, "outcome": "below_threshold"}
                           for pid in hits[1:]], "skipped": None}
    steps = [_step(1, "retrieve", None, input=q.text, output=outcome, paragraph_ids=hits,
                   scores=[1.5] * len(hits), extra={"module": "retriever", "k": 2, "threshold": 3.0}),
             _step(2, "extract", 1, input=q.text, paragraph_ids=hits[:1], llm_calls=1,
                   output=[{"info": fact, "support_passages": [0], "paragraph_ids": hits[:1], "entailment": 0.9,
                            "outcome": "learnt"}], extra={"module": "leaf", "generations": [fact]}),
             _step(3, "verify", 2, input=fact, output=True, paragraph_ids=hits[:1], scores={"entailment": 0.9},
                   extra={"module": "nli", "probabilities": [0.9], "judge": "scripted"}),
             _step(4, "read", 2, input=q.text, output=answer, scores={"confidence": 4.0}, llm_calls=1,
                   extra={"module": "main", "iteration": 1, "known_facts": 1, "explanation": fact,
                          "generations": [answer], "reused": False})]
    return {"iterations": 1, **_typed(steps, [{"step": 2, "claim": fact, "paragraph_ids": hits[:1], "score": 0.9}])}


def _searchain(rng: random.Random, q: Query, own: list[int], n: int, answer: str) -> Trace:
    node = {"index": 1, "query": _text(rng, 8), "answer": answer, "unsolved": False, "complete": True}
    hit = _hits(rng, own, n, 1)
    steps = [_step(1, "reason", None, output={"nodes": [node], "final_content": f"So the final answer is {answer}."},
                   llm_calls=1, extra={"round": 1, "generation": f"[Query 1]: {node['query']}", "attempts": 1}),
             _step(2, "retrieve", 1, input=node["query"], paragraph_ids=hit, scores=[2.0],
                   extra={"round": 1, "node": 1, "k": 1}),
             _step(3, "verify", 2, input={"query": node["query"], "answer": answer, "unsolved": False},
                   output={"verdict": "kept", "reader_answer": answer, "confidence": 1.0, "path_answer": answer},
                   paragraph_ids=hit, scores={"confidence": 1.0}, extra={"round": 1, "node": 1, "feedback": None}),
             _step(4, "read", 1, input=q.text, output=answer, paragraph_ids=hit, llm_calls=1,
                   extra={"generation": f"{answer} [1].", "final_content": f"{answer} [1].",
                          "traced": f"{answer} [1].\n[1] {node['query']}",
                          "marks": [{"number": 1, "paragraph_id": hit[0], "valid": True}]})]
    return _typed(steps, [{"step": 4, "claim": answer, "paragraph_ids": hit, "score": None}])


#: (name, method, share of questions answered right, results' trace maker, retrieves)
RUNS: tuple[tuple[str, str, float, Callable[..., Trace], bool], ...] = (
    ("ircot", "ircot", 0.45, _ircot, True), ("oner", "oner", 0.35, _oner, True), ("nor", "nor", 0.2, _nor, False),
    ("migres", "migres", 0.4, _migres, True), ("searchain", "searchain", 0.38, _searchain, True))


def _usage(rng: random.Random, calls: int) -> Usage:
    usage = Usage()
    prompt, completion, cached = rng.randint(300, 1500), rng.randint(5, 40), rng.randint(0, 300)
    for _ in range(calls):
        usage.add_llm(prompt, completion, rng.uniform(0.5, 3.0), cached_prompt_tokens=cached)
    usage.add_call("retrieval", rng.uniform(0.001, 0.02))
    usage.total_seconds = usage.component_seconds + rng.uniform(0.01, 0.2)
    return usage


def fill_store(store: Store, corpus: Corpus, n_runs: int, seed: int = 0) -> list[str]:
    """Store ``corpus`` and the scripted results of the first ``n_runs`` of :data:`RUNS` on it.

    Args:
        store: an empty store.
        corpus: the corpus of :func:`synthetic_corpus`.
        n_runs: how many runs (at most ``len(RUNS)``).
        seed: the random seed of the answers and traces.

    Returns:
        The run ids.
    """
    store.add_corpus(corpus)
    rng = random.Random(seed)
    n = len(corpus.paragraphs)
    run_ids = []
    for name, method, right, make, retrieves in RUNS[:n_runs]:
        config: dict[str, Any] = {"synthetic": True, **({"retrieval": "bm25"} if retrieves else {})}
        run = store.ensure_run(RunSpec(name, method, DATASET, config))
        for i, q in enumerate(corpus.queries):
            answer = q.answers[0] if rng.random() < right else rng.choice(_NAMES)
            own = list(range(i * PARAGRAPHS_PER_QUESTION, (i + 1) * PARAGRAPHS_PER_QUESTION))
            trace = make(rng, q, own, n, answer)
            steps = trace["typed_trace"]["steps"]
            chunk_ids = tuple(dict.fromkeys(pid for s in steps if s["kind"] == "retrieve" for pid in s["paragraph_ids"]))
            store.record_result(run.run_id, QueryResult(q.id, answer, chunk_ids if retrieves else (), trace,
                                                        _usage(rng, sum(s["llm_calls"] for s in steps))))
        run_ids.append(run.run_id)
    return run_ids


def _mb(size: float) -> str:
    return f"{size / 1e6:,.1f} MB" if size >= 1e6 else f"{size / 1e3:,.0f} kB"


def _unpacked_size(chunk: Path) -> int:
    """Bytes of the pages a chunk file carries, as UTF-8 HTML (before gzip and base64)."""
    text = chunk.read_text(encoding="utf-8")
    packed = json.loads(text[text.index(",") + 1:text.rindex(")")])
    pages = json.loads(gzip.decompress(base64.b64decode(packed))) if isinstance(packed, str) else packed
    return sum(len(page.encode("utf-8")) for page in pages)


def _folder_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _browser_times(out: Path) -> tuple[float, float, int] | None:
    """Seconds until the explorer lists its questions, and to open a question on its last page (None
    without Chromium or Playwright), and how many chunk scripts the page then holds."""
    browser_path = chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if browser_path is None:
        return None
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=browser_path, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        start = time.perf_counter()
        page.goto((out / "explorer.html").as_uri())
        page.wait_for_selector("#qlist li")
        listed = time.perf_counter() - start
        pages = int(page.inner_text("#page").split()[-1])
        for _ in range(pages - 1):  # walk to the last page, as a reader would page through
            page.click("#next")
        start = time.perf_counter()
        page.locator("#qlist li").last.click()
        page.wait_for_selector("#detail article.question")
        opened = time.perf_counter() - start
        chunks = page.locator("script[src*='chunk-']").count()
        browser.close()
    return listed, opened, chunks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, default=None, help="keep the store and report in this folder")
    parser.add_argument("--no-write", action="store_true", help="print the section, leave docs/benchmarks.md alone")
    parser.add_argument("--anytime-simulation", action="store_true",
                        help="instead: the anytime-valid sequence's validity by simulation (see the docstring)")
    parser.add_argument("--sequences", type=int, default=10_000, help="--anytime-simulation: simulated pairs")
    parser.add_argument("--looks", type=int, default=1_000, help="--anytime-simulation: questions per pair")
    parser.add_argument("--anytime-saved-runs", action="store_true",
                        help="instead: the claims pages' comparisons replayed as anytime-valid sequences")
    args = parser.parse_args()
    if args.anytime_simulation:
        return _anytime_simulation(args)
    if args.anytime_saved_runs:
        return _anytime_saved_runs(args)
    work = args.keep or Path(tempfile.mkdtemp(prefix="hopkit-report-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    db = work / "bench.db"
    if db.exists():
        db.unlink()
    store = Store.connect(f"sqlite:///{db}")
    start = time.perf_counter()
    fill_store(store, synthetic_corpus(args.questions), args.runs)
    filled = time.perf_counter() - start

    start = time.perf_counter()
    scored = [score_run(store, run) for run in store.runs()]
    summaries = [summary for summary, _ in scored]
    scores = {summary.run_id: per_question for summary, per_question in scored}
    scoring = time.perf_counter() - start
    start = time.perf_counter()
    report = collect_report(store, summaries, scores)
    collecting = time.perf_counter() - start
    out = work / "report"
    start = time.perf_counter()
    write_report(summaries, out, scores=scores, html=report)
    writing = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

    chunks = sorted((out / "html-report" / "questions").iterdir())
    chunk_sizes = [p.stat().st_size for p in chunks]
    unpacked = sum(_unpacked_size(p) for p in chunks)
    browser = _browser_times(out)
    command = command_line()
    lines = [
        f"## Report: `hopkit report` on {args.questions:,} questions x {args.runs} runs",
        "",
        f"Command: `{command}`{f' at niceness {os.nice(0)}' if os.nice(0) else ''} "
        f"({platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}; the machine was shared with a running "
        "benchmark, so the seconds are upper bounds).",
        "",
        f"A synthetic SQLite store (`benchmarks/report_bench.py`, fixed seed, no model): {args.questions:,} "
        f"questions with 6 paragraphs each, and {args.runs} runs (IRCoT, OneR, NoR, MIGRES, SearChain) whose "
        "scripted results carry traces in each method's shape. Filling it took "
        f"{filled:,.0f} s (one `record_result` transaction per answer, as the runner writes them).",
        "",
        "| step of `hopkit report` | seconds |",
        "|---|---:|",
        f"| score the runs (`score_run`, as `evaluate` does) | {scoring:,.1f} |",
        f"| read results, questions and paragraphs for the HTML report (`collect_report`) | {collecting:,.1f} |",
        f"| write every file through the staging folder (tables, PNG plots, HTML: pages, index, chunks) | "
        f"{writing:,.1f} |",
        f"| **total** | **{scoring + collecting + writing:,.1f}** |",
        "",
        f"Peak memory (RSS) of the process: {_mb(peak)}.",
        "",
        "| what is written | size |",
        "|---|---:|",
        f"| the whole report folder | {_mb(_folder_size(out))} |",
        f"| `index.html` (overview) | {_mb((out / 'index.html').stat().st_size)} |",
        f"| `html-report/index.js` (the explorer's list, loaded at once) | "
        f"{_mb((out / 'html-report' / 'index.js').stat().st_size)} |",
        f"| `html-report/questions/`: {len(chunks)} chunk files of 25 questions, loaded on demand | "
        f"{_mb(sum(chunk_sizes))} (mean {_mb(sum(chunk_sizes) / len(chunk_sizes))}, largest {_mb(max(chunk_sizes))}) |",
        f"| the question pages these chunks carry, as HTML before gzip and base64 | {_mb(unpacked)} "
        f"({unpacked / args.questions / 1e3:,.1f} kB a question, {args.runs} runs) |",
        "",
        "The synthetic paragraphs (words drawn from a small vocabulary) compress a little better than real "
        "ones; see docs/report.md for a real IRCoT run.",
    ]
    if browser is not None:
        listed, opened, loaded = browser
        lines += ["", f"In headless Chromium (opened from disk): the explorer listed its first page after "
                  f"{listed:.2f} s; a question of the last page opened in {opened:.2f} s, with {loaded} chunk "
                  "file loaded by then (the others stay on disk)."]
    else:
        lines += ["", "Chromium or Playwright is not installed: the explorer was not timed in a browser."]
    section = "\n".join(lines)
    print(section)
    if not args.no_write:
        write_section("report", section)
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def _anytime_simulation(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    nulls, truths = anytime_validity.simulate(args.sequences, args.looks, seed=0)
    seconds = time.perf_counter() - start
    image = ROOT / "docs" / "img" / "anytime-validity.png"
    anytime_validity.plot(nulls, truths, image)
    command = (f"nice -n {os.nice(0)} " if os.nice(0) else "") + command_line()
    section = anytime_validity.section(nulls, truths, args.sequences, args.looks, command, seconds,
                                       "img/anytime-validity.png")
    print(section)
    if not args.no_write:
        write_section("anytime-validity", section)
    return 0


def _anytime_saved_runs(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory() as scratch:
        use_home(Path(scratch))
        rows = anytime_saved_runs.replayed(restored_store(Path(scratch) / "hopkit.db"))
    section = anytime_saved_runs.summary(rows, command_line())
    print(section)
    if not args.no_write:
        write_section("anytime-saved-runs", section, ROOT / "docs" / "results.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
