"""Report benchmark: ``hopkit report`` (tables, plots and the HTML report) on 10,000 questions x 5 runs.

Builds a synthetic SQLite store (``report_synthetic``: scripted results in the methods' trace shapes,
no model), then does what ``hopkit report`` does, timing each part: score the runs, read their results
for the HTML report, write every file through the staging folder. It reports the time, the peak
memory and the sizes (whole folder, the explorer's index, the question chunks), and, when Chromium and
Playwright are installed, how long the explorer takes in headless Chromium to list the questions and
to open one of the last page. Run from the project root (the machine may be busy: nice it):

    nice -n 19 .venv/bin/python -m benchmarks.report_bench

It writes the ``report`` section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import json
import os
import platform
import resource
import shutil
import tempfile
import time
from pathlib import Path

from benchmarks._report import command_line, write_section
from benchmarks.environment import chromium
from benchmarks.report_synthetic import fill_store, synthetic_corpus
from hopkit.report.files import write_report
from hopkit.report.html import collect_report
from hopkit.scoring_runs import score_run
from hopkit.store.store import Store


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
    args = parser.parse_args()
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
        f"A synthetic SQLite store (`benchmarks/report_synthetic.py`, fixed seed, no model): {args.questions:,} "
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


if __name__ == "__main__":
    raise SystemExit(main())
