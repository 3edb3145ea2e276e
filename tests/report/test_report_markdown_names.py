"""Names in Markdown pages are written the one way: a row keeps its cells, no name brings HTML, a link or a code
span into a page, and each name reads back as itself (issue 70, failure 8).

``leaderboard.md`` did not escape ``|`` (a run named ``a|b|c`` broke its row) and it, ``comparison.md``'s
paired section and the claims page carried ``<script>``, ``onerror=`` and ``javascript:`` links from names
into Markdown that many renderers show as HTML.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from hopkit.claim_checks import ClaimCheck
from hopkit.evaluation.aggregate import QuestionCost, summarize_run
from hopkit.evaluation.scoring import QuestionScores
from hopkit.methods.paper_claims import PaperClaim
from hopkit.report.claims import claims_markdown
from hopkit.report.escape import csv_cell, markdown_cell
from hopkit.report.files import write_report
from hopkit.report.leaderboard import Setup
from hopkit.terminal import printable
from hopkit.usage import Usage

pytestmark = pytest.mark.unit

SCRIPT = "a|b|c<script>alert(1)</script>"
HOSTILE = (SCRIPT, "[x](javascript:alert(1))", "<img src=x onerror=alert(1)>", "`code` *em* _u_ ~s~ \\| end",
           "two\nlines & <b>bold</b>", "# heading")
DATASET = "d|s<i>x</i>"
N = 6


def cells(row: str) -> list[str]:
    """A GFM table row's cells: split at each ``|`` that no backslash escapes (``\\|`` is a pipe in a cell)."""
    found, cell, escaped = [], "", False
    for char in row.strip().removeprefix("|"):
        if escaped or char == "\\":
            cell, escaped = cell + char, not escaped and char == "\\"
        elif char == "|":
            found.append(cell.strip())
            cell = ""
        else:
            cell += char
    return found + ([cell.strip()] if cell.strip() else [])


def read_back(cell: str) -> str:
    """What a Markdown renderer shows for a cell without markup: backslash escapes and entities resolved."""
    return html.unescape(re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", cell))


def tables(page: str) -> list[list[str]]:
    blocks: list[list[str]] = [[]]
    for line in page.splitlines():
        if line.startswith("|"):
            blocks[-1].append(line)
        elif blocks[-1]:
            blocks.append([])
    return [block for block in blocks if block]


def assert_safe(page: str) -> None:
    """Every row has its header's cell count; no tag, HTML comment or unescaped link starts anywhere."""
    assert tables(page)
    for block in tables(page):
        width = len(cells(block[0]))
        assert all(len(cells(row)) == width for row in block), "\n".join(block)
    assert not re.search(r"<[A-Za-z/!?]", page), page
    assert not re.search(r"(?<!\\)\]\(javascript", page), page  # no link: its ]( is escaped wherever the name is


def scored(run_id: str, name: str, dataset: str, right: int) -> tuple[object, tuple[QuestionScores, ...]]:
    per_question = tuple(QuestionScores(f"q{i}", float(i < right), float(i < right), float(i < right), 1.0, 1.0,
                                        float(i < right)) for i in range(N))
    return summarize_run(run_id, name, "oner", dataset, per_question, [QuestionCost(Usage())] * N), per_question


@pytest.fixture()
def report(tmp_path: Path) -> Path:
    runs = [scored(f"{i:02d}aaaaaa{i:08d}", name, "hotpotqa", i) for i, name in enumerate(HOSTILE)]
    runs.append(scored("ffffffff00000000", SCRIPT, DATASET, 3))  # alone on its dataset: named in prose
    setups = {summary.run_id: Setup("qwen <b>q4</b>", "BM25 | k1 0.9") for summary, _ in runs}
    write_report([summary for summary, _ in runs], tmp_path, scores={s.run_id: q for s, q in runs}, setups=setups)
    return tmp_path


@pytest.mark.parametrize("page", ["leaderboard.md", "comparison.md"])
def test_hostile_names_keep_every_row_whole_and_bring_no_html_into_the_page(report: Path, page: str) -> None:
    text = (report / page).read_text(encoding="utf-8")
    assert_safe(text)
    shown = {read_back(cell) for block in tables(text) for row in block for cell in cells(row)}
    for name in HOSTILE:
        assert printable(name) in shown or any(cell.startswith(printable(name) + " (") for cell in shown), name


def test_the_leaderboard_row_of_a_run_named_with_pipes_has_the_headers_cells(report: Path) -> None:
    """The issue's case: ``a|b|c`` split its row into three more cells."""
    text = (report / "leaderboard.md").read_text(encoding="utf-8")
    header = next(line for line in text.splitlines() if line.startswith("| rank"))
    rows = [line for line in text.splitlines() if line.startswith("| ") and len(cells(line)) > 1
            and read_back(cells(line)[1]) == SCRIPT]
    assert len(rows) == 2 and all(len(cells(row)) == len(cells(header)) == 12 for row in rows), rows
    assert "## d\\|s&lt;i&gt;x&lt;/i&gt;" in text  # the dataset's heading
    assert "Model: qwen &lt;b&gt;q4&lt;/b&gt;." in text and "| BM25 \\| k1 0.9 |" in text


def test_the_paired_section_names_runs_and_datasets_the_same_way(report: Path) -> None:
    text = (report / "comparison.md").read_text(encoding="utf-8")
    section = text.split("## Paired comparisons")[1]
    assert "### d\\|s&lt;i&gt;x&lt;/i&gt;" in section
    assert f"One run ({markdown_cell(SCRIPT)}), nothing to compare." in section


def test_the_claims_page_writes_names_in_its_notes_the_same_way() -> None:
    claim = PaperClaim("alce-rerank", "oner", "above", "em", "ALCE, Table 1", ("hotpotqa",))
    check = ClaimCheck(claim, DATASET, None, None, None, "not run",
                       f"no run of alce-rerank on {DATASET}: `hopkit run {SCRIPT}`")
    page = claims_markdown("alce-rerank", [check], absent=[SCRIPT])
    assert_safe(page)
    assert f"`hopkit run {SCRIPT}`" not in page and markdown_cell(SCRIPT) in page


def test_markdown_cell_and_csv_cell() -> None:
    assert markdown_cell("a|b") == "a\\|b" and markdown_cell("ircot_fewshot (1a2b)") == "ircot_fewshot (1a2b)"
    assert markdown_cell("<0.001") == "&lt;0.001" and markdown_cell("x\ny") == "x\\\\ny"
    assert markdown_cell("_x_ *y* `z` [a](b) ~c~ $d$ & \\") == (
        "\\_x\\_ \\*y\\* \\`z\\` [a\\](b) \\~c\\~ \\$d\\$ &amp; \\\\")
    assert markdown_cell("[x][y] [z]: w [95%]") == "[x\\][y] [z\\]: w [95%]"
    assert markdown_cell("# h") == "\\# h" and markdown_cell("- item") == "\\- item"
    assert markdown_cell("toy\u3164") == "toy\\\\u3164"  # what prints as nothing, as on the terminal
    assert csv_cell("=HYPERLINK(1)") == "'=HYPERLINK(1)" and csv_cell(SCRIPT) == SCRIPT
