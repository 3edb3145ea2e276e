"""Write the HTML report into a folder: the overview (``index.html``), the question explorer
(``explorer.html``) and their files (``html-report/``: stylesheet, script, question index and chunks).

Every asset is in the folder (no CDN, no server): the pages open from disk in any browser.
"""

from __future__ import annotations

import json
import math
import shutil
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import ChoiceLoader, Environment, PackageLoader, select_autoescape

from hopkit.report.html.model import HtmlReportInput
from hopkit.report.html.overview import overview
from hopkit.report.html.paired import paired_views
from hopkit.report.html.questions import question_index, write_question_chunks
from hopkit.report.html.renderers import StepRenderer, method_templates
from hopkit.report.html.trace_view import pretty_json

__all__ = ["ASSETS", "HTML_ENTRIES", "INDEX", "html_environment", "write_html"]

#: The report's entry page (the one to open).
INDEX = "index.html"
#: The folder beside the pages that holds their stylesheet, script and data.
ASSETS = "html-report"
#: What :func:`write_html` writes into its folder (two pages and one folder).
HTML_ENTRIES: tuple[str, ...] = (INDEX, "explorer.html", ASSETS)
_STATIC = ("report.css", "explorer.js")


def _number(value: Any) -> str:
    """A count or a number of seconds, to about three significant digits, without exponents."""
    if value is None:
        return "–"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return str(value)
    if isinstance(value, int) or value == 0:
        return f"{value:,.0f}"
    size = abs(value)
    if size < 0.001:
        return "<0.001"
    if size >= 100:
        return f"{value:,.0f}"
    return f"{value:.{max(0, 2 - math.floor(math.log10(size)))}f}"


def _percent(value: Any) -> str:
    if value is None:
        return "–"
    return f"{100 * float(value):.0f}%"


def html_environment() -> Environment:
    """The Jinja environment of the report: the package's templates, HTML autoescaping, and the
    filters ``pretty`` (indented JSON), ``num`` and ``pct``; ``render_step`` draws a trace step.

    Returns:
        The environment.
    """
    env = Environment(loader=ChoiceLoader([PackageLoader("hopkit.report.html", "templates"), method_templates()]),
                      autoescape=select_autoescape(default=True, default_for_string=True),
                      trim_blocks=True, lstrip_blocks=True)
    env.filters.update(pretty=pretty_json, num=_number, pct=_percent)
    env.globals["render_step"] = StepRenderer(env)
    return env


def write_html(report: HtmlReportInput, folder: Path, *, generated: datetime | None = None,
               compress_chunks: bool = True) -> Path:
    """Write the HTML report's files into ``folder`` (which should be empty: a staging folder).

    Args:
        report: what to show.
        folder: the folder to write into (created if missing).
        generated: the time shown in the header (now, by default).
        compress_chunks: gzip the question chunks (see :func:`hopkit.report.html.questions.chunk_script`);
            plain ones are five times larger but readable in a text editor.

    Returns:
        The path of ``index.html``.

    Raises:
        OSError: a file cannot be written.
    """
    env = html_environment()
    folder.mkdir(parents=True, exist_ok=True)
    assets = folder / ASSETS
    assets.mkdir(exist_ok=True)
    for name in _STATIC:
        with resources.as_file(resources.files("hopkit.report.html") / "assets" / name) as source:
            shutil.copyfile(source, assets / name)
    stamp = (generated or datetime.now(timezone.utc)).strftime("%Y-%m-%d %H:%M UTC")
    common = {"assets": ASSETS, "generated": f"generated {stamp}"}
    sections = overview(report)
    index_page = env.get_template("overview.html.j2").render(
        page="overview", sections=sections, n_runs=len(report.runs), paired_by_dataset=paired_views(report),
        **common)
    (folder / INDEX).write_text(index_page, encoding="utf-8")
    (folder / "explorer.html").write_text(
        env.get_template("explorer.html.j2").render(page="explorer", **common), encoding="utf-8")
    index = question_index(report, f"{ASSETS}/questions/")
    (assets / "index.js").write_text("window.HOPKIT_INDEX = " + json.dumps(index, ensure_ascii=False) + ";\n",
                                     encoding="utf-8")
    write_question_chunks(env, report, assets / "questions", compress=compress_chunks)
    return folder / INDEX
