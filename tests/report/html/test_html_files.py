"""The HTML report's files: written by ``hopkit report`` beside the tables, self-contained, all or nothing."""

from __future__ import annotations

import base64
import gzip
import json
import re
import tomllib
from pathlib import Path

import pytest

from hopkit.cli import main
from hopkit.report.html.pareto import pareto_front
from hopkit.report.html.questions import chunk_script
from hopkit.report.html.svg import PlotPoint, quality_cost_svg

from .conftest import BuiltReport

pytestmark = pytest.mark.unit


def index_data(out: Path) -> dict:
    text = (out / "html-report" / "index.js").read_text(encoding="utf-8")
    assert text.startswith("window.HOPKIT_INDEX = ") and text.endswith(";\n")
    return json.loads(text[len("window.HOPKIT_INDEX = "):-2])


def test_report_writes_the_pages_their_assets_and_one_chunk_per_25_questions(built_report: BuiltReport) -> None:
    out = built_report.out
    for name in ("index.html", "explorer.html", "html-report/report.css", "html-report/explorer.js",
                 "html-report/index.js", "html-report/questions/chunk-00000.js"):
        assert (out / name).is_file(), name
    assert len(list((out / "html-report" / "questions").iterdir())) == 1
    data = index_data(out)
    assert [run["label"] for run in data["runs"]] == ["ircot", "oner", "nor"]
    assert [q[1] for q in data["questions"]] == [q.id for q in built_report.questions]
    by_id = {q[1]: q[4] for q in data["questions"]}
    assert {qid for qid, runs in by_id.items() if runs["0"][1] == 1.0} == built_report.ircot_right
    assert {qid for qid, runs in by_id.items() if runs["0"][5] == 1} == {built_report.ircot_failed}
    assert {qid for qid, runs in by_id.items() if runs["1"][1] == 1.0} == built_report.oner_right


def test_the_pages_need_no_server_and_no_internet(built_report: BuiltReport) -> None:
    files = [p for p in built_report.out.rglob("*") if p.suffix in (".html", ".js", ".css")]
    assert len(files) == 6
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text), path
        assert "@import" not in text and "fetch(" not in text, path
        for local in re.findall(r"""(?:src|href)="([^"#]+)\"""", text):
            assert (path.parent / local).exists(), f"{path} names {local}, which is not in the report"


def test_report_prints_the_page_to_open(built_report: BuiltReport, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "again"
    assert main(["--db", built_report.db, "report", "--out", str(out)]) == 0
    assert f"open {out / 'index.html'} in a browser" in capsys.readouterr().out


def test_an_earlier_html_report_is_replaced_whole(built_report: BuiltReport, tmp_path: Path) -> None:
    out = tmp_path / "report"
    stale = out / "html-report" / "questions" / "chunk-00099.js"
    stale.parent.mkdir(parents=True)
    stale.write_text("hopkitChunk(99, []);\n", encoding="utf-8")
    assert main(["--db", built_report.db, "report", "--out", str(out)]) == 0
    assert not stale.exists()
    assert (out / "html-report" / "questions" / "chunk-00000.js").is_file()
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no staging folder left


def test_a_file_where_the_html_data_goes_fails_before_anything_is_written(
        built_report: BuiltReport, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report"
    out.mkdir()
    (out / "html-report").write_text("mine\n", encoding="utf-8")
    assert main(["--db", built_report.db, "report", "--out", str(out)]) == 2
    assert "is a file, where the HTML report keeps its data" in capsys.readouterr().err
    assert [p.name for p in out.iterdir()] == ["html-report"]


def test_the_pareto_front_keeps_runs_no_other_run_beats_on_both_cost_and_quality() -> None:
    points = [(10.0, 0.5), (2.0, 0.3), (5.0, 0.5), (1.0, 0.1), (6.0, 0.2), (2.0, 0.3)]
    assert pareto_front(points) == [3, 1, 5, 2]  # (10, 0.5) costs more than (5, 0.5) for the same F1
    assert pareto_front([]) == []


def test_the_plot_fills_the_points_on_the_front_and_joins_them() -> None:
    svg = str(quality_cost_svg([PlotPoint("cheap", 1.0, 0.2, 0.1, 0.3), PlotPoint("good", 4.0, 0.6, 0.5, 0.7),
                                PlotPoint("worse", 5.0, 0.4, 0.3, 0.5)],
                               cost_label="seconds per question", quality_label="F1"))
    assert svg.count('class="point on-front"') == 2 and svg.count('class="point"') == 1
    assert len(re.search(r'<polyline class="front" points="([^"]*)"', svg).group(1).split()) == 2
    assert "worse: F1 40.0% [30.0, 50.0], 5 seconds per question</title>" in svg


def test_every_template_and_asset_is_package_data() -> None:
    """A template the wheel leaves out would fail only for users who pip-installed hopkit."""
    root = Path(__file__).resolve().parents[3]
    package = root / "src" / "hopkit"
    patterns = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))[
        "tool"]["setuptools"]["package-data"]["hopkit"]
    shipped = {path for pattern in patterns for path in package.glob(pattern)}
    needed = {path for path in (package / "report" / "html").rglob("*")
              if path.is_file() and path.suffix not in (".py", ".pyc")}
    needed |= set((package / "methods").rglob("*.j2"))  # each method's own report template
    assert len(needed) >= 11 and needed <= shipped, sorted(str(p) for p in needed - shipped)


def test_a_chunk_carries_its_pages_gzipped_or_plain() -> None:
    pages = ["<article>é “quoted” </script></article>", "<article>two</article>"]
    packed = re.fullmatch(r'hopkitChunk\(7, "([A-Za-z0-9+/=]+)"\);\n', chunk_script(7, pages))
    assert packed is not None
    assert json.loads(gzip.decompress(base64.b64decode(packed.group(1)))) == pages
    plain = chunk_script(7, pages, compress=False)
    assert plain.startswith("hopkitChunk(7, [") and json.loads(plain[len("hopkitChunk(7, "):-3]) == pages
