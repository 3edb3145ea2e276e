"""The explorer's data: the question list (one small index) and each question's page (chunk files).

The index holds what the list filters on: per question its dataset, id, text, gold answers and
each run's answer, scores and failure. The pages are rendered HTML, grouped :data:`CHUNK_SIZE` to
a file that the explorer loads with a ``<script>`` tag when a question of it is opened, so a
report of 10,000 questions never loads more than the list and the chunks opened.

A chunk file calls ``hopkitChunk(n, pages)``; ``pages`` is the JSON list of the pages, gzipped
and base64-encoded (the browser inflates it with ``DecompressionStream``): traces and paragraph
texts compress about sevenfold, so the report takes a fifth of the disk it would as plain text.
"""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path
from typing import Any, Iterator, Sequence

from jinja2 import Environment

from hopkit.records import Paragraph, Query
from hopkit.report.html.collect import referenced_paragraph_ids
from hopkit.report.html.model import HtmlReportInput, HtmlRun
from hopkit.report.html.overview import METRIC_LABELS
from hopkit.report.html.trace_view import QuestionContext, trace_view

__all__ = ["CHUNK_SIZE", "PAGE_SIZE", "CORRECTNESS_METRICS", "chunk_script", "question_index", "render_question",
           "write_question_chunks"]

#: Questions per chunk file.
CHUNK_SIZE = 25
#: Questions per page of the list.
PAGE_SIZE = 50
#: The 0/1 metrics the list can call an answer correct by, in the order offered.
CORRECTNESS_METRICS: tuple[str, ...] = ("em", "cover_em", "llm_accuracy")
# Per run in the index: answer, em, f1, cover_em, llm_accuracy, failed (the explorer's METRIC_COLUMN).
_INDEX_METRICS = ("em", "f1", "cover_em", "llm_accuracy")


def _ordered_questions(report: HtmlReportInput) -> Iterator[tuple[str, Query]]:
    for dataset in report.datasets:
        for query in report.questions.get(dataset, ()):
            yield dataset, query


def question_index(report: HtmlReportInput, chunk_path: str) -> dict[str, Any]:
    """The explorer's list of questions, as the JSON object ``index.js`` assigns.

    Args:
        report: the report's input.
        chunk_path: where the chunk files are, relative to the explorer page.

    Returns:
        ``runs`` (label, dataset, method, run id), ``datasets``, ``metrics`` (the correctness
        metrics any run has), page and chunk sizes, and ``questions``: per question
        ``[dataset index, id, text, gold answers, {run index: [answer, em, f1, cover_em,
        llm_accuracy, failed]}]``, in chunk order.
    """
    datasets = report.datasets
    runs = list(report.runs)
    questions = []
    for dataset, query in _ordered_questions(report):
        per_run: dict[str, list[Any]] = {}
        for r, run in enumerate(runs):
            if run.summary.dataset != dataset or query.id not in run.results:
                continue
            result = run.results[query.id]
            scores = run.scores.get(query.id)
            values = [None if scores is None else scores.get(m) if m in METRIC_LABELS else None
                      for m in _INDEX_METRICS]
            per_run[str(r)] = [result.prediction, *values, 1 if result.error is not None else 0]
        questions.append([datasets.index(dataset), query.id, query.text, list(query.answers), per_run])
    metrics = [[m, METRIC_LABELS[m]] for m in CORRECTNESS_METRICS
               if m in METRIC_LABELS and any(m in run.summary.metrics for run in runs)]
    return {"runs": [{"label": run.label, "dataset": run.summary.dataset, "method": run.summary.method,
                      "run_id": run.summary.run_id} for run in runs],
            "datasets": datasets, "metrics": metrics or [["em", "EM"]], "pageSize": PAGE_SIZE,
            "chunkSize": CHUNK_SIZE, "chunkPath": chunk_path, "questions": questions}


def _run_entry(index: int, run: HtmlRun, query: Query, ctx: QuestionContext) -> dict[str, Any]:
    result = run.results.get(query.id)
    scores = run.scores.get(query.id)
    values = {m: scores.get(m) for m in METRIC_LABELS} if scores is not None else {}
    right = None
    if values.get("em") is not None:
        right = values["em"] == 1.0
    elif result is not None:
        right = ctx.answer_right(result.prediction)
    return {"index": index, "label": run.label, "method": run.summary.method, "result": result,
            "scores": values, "right": right,
            "view": trace_view(result, ctx, run.summary.method) if result is not None else None}


def _paragraph_order(query: Query, entries: Sequence[dict[str, Any]]) -> list[int]:
    order: dict[int, None] = {}
    for entry in entries:
        if entry["result"] is None:
            continue
        order.update(dict.fromkeys(entry["result"].chunk_ids))
        order.update(dict.fromkeys(pid for step in entry["view"].steps for pid in step.paragraph_ids))
        order.update(dict.fromkeys(sorted(referenced_paragraph_ids(entry["result"]))))
    gold = set(query.gold_paragraph_ids)
    return [pid for pid in order if pid not in gold]


def render_question(env: Environment, report: HtmlReportInput, dataset: str, query: Query) -> str:
    """One question's page.

    Args:
        env: the report's Jinja environment.
        report: the report's input.
        dataset: the question's dataset.
        query: the question.

    Returns:
        The page's HTML (an ``<article>``).
    """
    paragraphs = report.paragraphs.get(dataset, {})
    ctx = QuestionContext(query, paragraphs)
    entries = [_run_entry(i, run, query, ctx) for i, run in enumerate(report.runs)
               if run.summary.dataset == dataset]
    gold: list[Paragraph] = [paragraphs.get(pid) or Paragraph(pid, f"#{pid}", "(not in the report)")
                             for pid in query.gold_paragraph_ids]
    others = [paragraphs[pid] for pid in _paragraph_order(query, entries) if pid in paragraphs]
    return env.get_template("question.html.j2").render(
        q=query, dataset=dataset, runs=entries, ctx=ctx, gold_paragraphs=gold, other_paragraphs=others,
        metrics=METRIC_LABELS)


def chunk_script(number: int, pages: Sequence[str], *, compress: bool = True) -> str:
    """The text of one chunk file: a call of ``hopkitChunk`` with the chunk's pages.

    Args:
        number: the chunk's number.
        pages: its questions' pages, in order.
        compress: pass the pages gzipped and base64-encoded (a string), else as a JSON list.

    Returns:
        The script.
    """
    data = json.dumps(list(pages), ensure_ascii=False)
    if compress:
        packed = base64.b64encode(gzip.compress(data.encode("utf-8"), compresslevel=6, mtime=0))
        data = json.dumps(packed.decode("ascii"))
    return f"hopkitChunk({number}, {data});\n"


def write_question_chunks(env: Environment, report: HtmlReportInput, folder: Path, *,
                          compress: bool = True) -> int:
    """Render every question's page into chunk files ``chunk-00000.js`` ... in ``folder``.

    Args:
        env: the report's Jinja environment.
        report: the report's input.
        folder: where to write (created if missing).
        compress: gzip and base64-encode each chunk's pages (see :func:`chunk_script`).

    Returns:
        The number of chunk files written.

    Raises:
        OSError: a file cannot be written.
    """
    folder.mkdir(parents=True, exist_ok=True)
    pages: list[str] = []
    written = 0

    def flush() -> None:
        nonlocal written
        (folder / f"chunk-{written:05d}.js").write_text(chunk_script(written, pages, compress=compress),
                                                        encoding="utf-8")
        written += 1
        pages.clear()

    for dataset, query in _ordered_questions(report):
        pages.append(render_question(env, report, dataset, query))
        if len(pages) == CHUNK_SIZE:
            flush()
    if pages:
        flush()
    return written
