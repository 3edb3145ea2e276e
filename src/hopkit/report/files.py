"""A comparison report on disk: table (Markdown, CSV), plots (PNG) and the HTML report, written all or nothing.

``leaderboard.md`` ranks the runs of each dataset (:mod:`hopkit.report.leaderboard`).
Given the runs' per-question scores, the Markdown file also gets a "Paired
comparisons" section (:func:`hopkit.report.paired.paired_section`). Given the runs'
results (:class:`hopkit.report.html.HtmlReportInput`), the folder also gets the static
HTML report (:mod:`hopkit.report.html`): ``index.html``, ``explorer.html`` and the
folder ``html-report/`` they read.

The files are first rendered into a hidden staging folder inside the target
folder, then moved into place (a rename on the same file system); if any of
them fails, none is moved and a folder this call created is removed again, so
an interrupted report never leaves half its files beside an older report's.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Mapping, Sequence

from hopkit.errors import ReportError
from hopkit.evaluation.aggregate import RunSummary
from hopkit.evaluation.scoring import QuestionScores
from hopkit.full_disk import free_space, is_disk_full
from hopkit.report.html import ASSETS as HTML_ASSETS
from hopkit.report.html import HTML_ENTRIES, HtmlReportInput
from hopkit.report.html import INDEX as HTML_INDEX
from hopkit.report.html import write_html
from hopkit.report.leaderboard import Setup, leaderboard
from hopkit.report.paired import ScoredRun, paired_section
from hopkit.report.table import comparison_table, to_csv, to_markdown

__all__ = ["REPORT_FILES", "write_report"]

#: The files a report consists of, in the order they are written.
REPORT_FILES: tuple[str, ...] = ("comparison.md", "comparison.csv", "comparison.png", "time_split.png",
                                 "leaderboard.md")

_STAGING_PREFIX = ".hopkit-report-"


def write_report(summaries: Sequence[RunSummary], out: Path, *,
                 scores: Mapping[str, Sequence[QuestionScores]] | None = None,
                 html: HtmlReportInput | None = None, setups: Mapping[str, Setup] | None = None,
                 references: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """Write the comparison table and plots of ``summaries`` into the folder ``out``.

    Files of an earlier report in ``out`` are replaced; other files are left alone.

    Args:
        summaries: The runs to compare (at least one).
        out: The folder; it and its parents are created if missing.
        scores: Per-question scores by run id; when given, ``comparison.md`` ends
            with the paired comparisons of the runs on each dataset (runs without
            scores here are left out of them).
        html: The runs' results; when given, the HTML report is written too (an earlier
            one in ``out`` is replaced whole).
        setups: Per run id, its model and retriever, for the leaderboard's setup lines.
        references: Per dataset, the published results shown under its runs on the leaderboard
            (:func:`hopkit.report.published_rows.store_references`).

    Returns:
        The paths written, in the order of :data:`REPORT_FILES`, then (with ``html``) the
        HTML report's ``index.html``.

    Raises:
        ReportError: ``out`` is an existing file, cannot be created, or cannot
            be written to (read-only, full disk); nothing is written then.
        ValueError: ``summaries`` is empty.
    """
    if not summaries:
        raise ValueError("write_report: no runs to report")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ReportError(f"cannot write the report to {out}: it is an existing file, not a "
                          "folder; choose a folder (it is created if missing)")
    entries = REPORT_FILES + (HTML_ENTRIES if html is not None else ())
    for name in entries:
        if name == HTML_ASSETS:
            if (out / name).exists() and not (out / name).is_dir():
                raise ReportError(f"cannot write the report to {out}: {out / name} is a file, where the "
                                  "HTML report keeps its data; move it away or choose another folder")
        elif (out / name).is_dir():
            raise ReportError(f"cannot write the report to {out}: {out / name} is a folder; "
                              "move it away or choose another folder")
    created = _missing_folders(out)
    staging: Path | None = None
    done = False
    try:
        out.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=_STAGING_PREFIX, dir=out))
        _render(summaries, staging, scores)
        (staging / "leaderboard.md").write_text(leaderboard(summaries, setups or {}, references=references),
                                                encoding="utf-8")
        if html is not None:
            write_html(html, staging)
        for name in entries:
            if name == HTML_ASSETS and (out / name).exists():
                os.replace(out / name, staging / f"{name}.replaced")  # removed with the staging folder
            os.replace(staging / name, out / name)
        done = True
    except OSError as exc:
        if is_disk_full(exc):
            raise ReportError(free_space("the report", exc, out, elsewhere="--out")) from exc
        reason = exc.strerror or str(exc)
        where = f" ({exc.filename})" if exc.filename and Path(exc.filename) != out else ""
        raise ReportError(f"cannot write the report to {out}: {reason}{where}; choose a "
                          "writable folder") from exc
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
        if not done:
            _remove_empty(created)
    return tuple(out / name for name in REPORT_FILES) + ((out / HTML_INDEX,) if html is not None else ())


def _render(summaries: Sequence[RunSummary], folder: Path,
            scores: Mapping[str, Sequence[QuestionScores]] | None) -> None:
    # Imported here so that writing a table alone never loads matplotlib.
    from hopkit.report.plot import plot_comparison, plot_time_split

    table = comparison_table(summaries)
    markdown = to_markdown(table)
    if scores is not None:
        scored = [ScoredRun(s, tuple(scores[s.run_id])) for s in summaries if s.run_id in scores]
        if scored:
            markdown += "\n" + paired_section(scored)
    (folder / "comparison.md").write_text(markdown, encoding="utf-8")
    to_csv(table, folder / "comparison.csv")
    plot_comparison(summaries, folder / "comparison.png")
    plot_time_split(summaries, folder / "time_split.png")


def _missing_folders(out: Path) -> list[Path]:
    """``out`` and those of its parents that do not exist yet, deepest first."""
    missing = []
    for folder in (out, *out.parents):
        if folder.exists():
            break
        missing.append(folder)
    return missing


def _remove_empty(folders: list[Path]) -> None:
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return
