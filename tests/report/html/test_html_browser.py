"""The HTML report in a real headless Chromium, opened from disk: what is on screen, not just the HTML text.

The report is ``hopkit report``'s, of IRCoT, OneR and NoR runs made through the runner into SQLite
with a scripted model (see ``conftest.py`` for what each run answers).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterator

import pytest

try:
    from playwright.sync_api import Page, expect
except ImportError:  # the browser fixture says why; in CI a missing package is an error
    if os.environ.get("CI") == "true":
        raise
    pytest.skip("browser tests skipped: the playwright package is not installed (pip install -e '.[test]')",
                allow_module_level=True)

from hopkit.report.html import collect_report, write_html
from hopkit.report.html import questions as question_pages
from hopkit.scoring_runs import score_run
from hopkit.store.store import Store

from .conftest import BuiltReport

pytestmark = [pytest.mark.unit, pytest.mark.browser]


@pytest.fixture
def page(browser: Any) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda exc: errors.append(str(exc)))
    yield opened
    context.close()
    assert errors == [], f"the page raised JavaScript errors: {errors}"


def _open(page: Page, path: Path) -> None:
    page.goto(path.resolve().as_uri())


def test_overview_shows_every_run_with_intervals_costs_plot_and_paired_comparisons(
        page: Page, built_report: BuiltReport) -> None:
    _open(page, built_report.out / "index.html")
    rows = page.locator("table.overview tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.locator("td.run-label")).to_contain_text(["ircot", "oner", "nor"])
    oner = page.locator("tr", has=page.locator("td.run-label", has_text="oner"))
    em = oner.locator("td.metric").first
    expect(em.locator(".mean")).to_have_text("50.0")
    expect(em.locator(".ci")).to_be_visible()
    for header in ("s/q", "LLM calls/q", "Prompt tok/q", "Compl tok/q", "Cached %", "Time split"):
        expect(page.get_by_role("columnheader", name=header, exact=True)).to_be_visible()
    expect(oner.locator(".split-text")).to_be_visible()
    expect(page.locator("svg.plot")).to_be_visible()
    expect(page.locator("svg.plot circle")).not_to_have_count(0)
    expect(page.locator(".badge.front").first).to_be_visible()
    paired = page.locator("section.paired")
    expect(paired.locator("h4", has_text="ircot (A) against oner (B)")).to_be_visible()
    expect(paired.locator("table.paired-table").first).to_contain_text("McNemar exact")


def test_explorer_filters_by_run_outcome_disagreement_and_text(page: Page, built_report: BuiltReport) -> None:
    _open(page, built_report.out / "explorer.html")
    items = page.locator("#qlist li")
    expect(items).to_have_count(4)
    expect(page.locator("#count")).to_have_text("4 of 4 questions match")
    text = {q.id: q.text for q in built_report.questions}
    page.select_option("#f-run", label="ircot")
    page.select_option("#f-outcome", "correct")
    expect(items.locator(".qtext")).to_have_text(sorted((text[i] for i in built_report.ircot_right),
                                                        key=list(text.values()).index))
    page.select_option("#f-outcome", "wrong")
    expect(items).to_have_count(4 - len(built_report.ircot_right))
    page.select_option("#f-run", label="all runs")
    page.select_option("#f-outcome", "disagree")
    expect(items).to_have_count(3)  # the fourth question every run got wrong
    expect(items.locator(".qtext")).not_to_contain_text([text[built_report.ircot_failed]])
    page.select_option("#f-outcome", "all")
    last = built_report.questions[-1]
    page.fill("#f-search", " ".join(last.text.split()[2:5]).upper())
    expect(items).to_have_count(1)
    expect(items.locator(".qtext")).to_have_text(last.text)
    page.fill("#f-search", "no question says this")
    expect(items).to_have_count(0)
    expect(page.locator("#count")).to_have_text("0 of 4 questions match")


def test_a_question_shows_gold_answers_and_its_ircot_trace_unfolds(page: Page, built_report: BuiltReport) -> None:
    first = built_report.questions[0]
    _open(page, built_report.out / "explorer.html")
    page.locator("#qlist li .qtext", has_text=first.text).click()
    article = page.locator("#detail article.question")
    expect(article.locator("h2")).to_have_text(first.text)
    expect(article.locator(".gold-answer").first).to_have_text(first.answers[0])
    expect(article.locator("details.paragraph.gold").first).to_be_visible()
    ircot = article.locator("section.run", has=page.locator("h3", has_text="ircot"))
    expect(ircot.locator(":scope > .answer-line .badge.right")).to_be_visible()
    steps = ircot.locator("ol.timeline > li.step")
    expect(steps.first).to_be_hidden()  # the trace is folded
    ircot.locator("details.trace > summary").click()
    expect(steps).to_have_count(7)  # three retrievals, three reasoning steps, the reader
    expect(steps.locator(".kind")).to_have_text(["retrieve", "reason"] * 3 + ["read"])
    first_reason = steps.nth(1)
    expect(first_reason.locator(".sentence")).to_contain_text("The question asks about")
    expect(first_reason.locator(".sentence .rest")).to_have_text(" It is long.")
    raw = first_reason.locator("details.raw", has_text="Model output").locator("pre")
    expect(raw).to_be_hidden()
    first_reason.locator("details.raw > summary", has_text="Model output").click()
    expect(raw).to_be_visible()
    expect(raw).to_contain_text("It is long.")
    expect(steps.first.locator("table.hits .badge.kept").first).to_be_visible()
    expect(steps.last.locator(".answer")).to_have_text(first.answers[0])
    oner = article.locator("section.run", has=page.locator("h3", has_text="oner"))
    oner.locator("details.trace > summary").click()
    expect(oner.locator("li.step .kind")).to_have_text(["retrieve", "read"])
    expect(oner.locator("li.step.kind-retrieve table.hits tr")).not_to_have_count(0)
    expect(oner.locator("li.step.kind-read .answer")).to_have_text(first.answers[0])
    nor = article.locator("section.run", has=page.locator("h3", has_text="nor"))
    nor.locator("details.trace > summary").click()
    expect(nor.locator("li.step .kind")).to_have_text(["read"])
    expect(nor.locator("li.step.kind-read .badge.wrong")).to_be_visible()


def test_a_paragraph_link_in_a_trace_opens_the_paragraph_on_the_page(page: Page, built_report: BuiltReport) -> None:
    _open(page, built_report.out / "explorer.html")
    page.locator("#qlist li").first.click()
    ircot = page.locator("#detail section.run", has=page.locator("h3", has_text="ircot"))
    ircot.locator("details.trace > summary").click()
    link = ircot.locator("li.step.kind-retrieve table.hits a.para:not(.gold)").first
    target_id = link.get_attribute("href")
    assert target_id is not None and target_id.startswith("#para-")
    target = page.locator(f"details{target_id}")
    expect(target.locator("p")).to_be_hidden()  # other paragraphs are folded at the bottom
    title = link.inner_text()
    link.click()
    expect(target.locator("p")).to_be_visible()
    expect(target).to_be_in_viewport()
    expect(target.locator("summary")).to_contain_text(title)
    expect(page.locator("#detail article.question")).to_be_visible()  # the question stays open


def test_a_failed_question_shows_the_error_and_the_steps_it_reached(page: Page, built_report: BuiltReport) -> None:
    failed = next(q for q in built_report.questions if q.id == built_report.ircot_failed)
    _open(page, built_report.out / "explorer.html")
    page.locator("#qlist li .qtext", has_text=failed.text).click()
    ircot = page.locator("#detail section.run", has=page.locator("h3", has_text="ircot"))
    expect(ircot.locator(".error")).to_contain_text("ran out of its")
    ircot.locator("details.trace > summary").click()
    expect(ircot.locator("li.step .kind").first).to_have_text("retrieve")


def test_the_list_is_paged_and_question_chunks_load_only_when_opened(
        page: Page, built_report: BuiltReport, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(question_pages, "PAGE_SIZE", 3)
    monkeypatch.setattr(question_pages, "CHUNK_SIZE", 2)
    store = Store.connect(built_report.db)
    scored = [score_run(store, run) for run in store.runs()]
    report = collect_report(store, [s for s, _ in scored], {s.run_id: q for s, q in scored})
    index = write_html(report, tmp_path / "small", compress_chunks=False)  # the plain form reads too
    assert sorted(p.name for p in (tmp_path / "small" / "html-report" / "questions").iterdir()) == [
        "chunk-00000.js", "chunk-00001.js"]
    _open(page, index.with_name("explorer.html"))
    items = page.locator("#qlist li")
    expect(items).to_have_count(3)
    expect(page.locator("#page")).to_have_text("page 1 of 2")
    expect(page.locator("#prev")).to_be_disabled()
    chunk_scripts = page.locator("script[src*='chunk-']")
    expect(chunk_scripts).to_have_count(0)
    page.click("#next")
    expect(items).to_have_count(1)
    expect(items.locator(".qtext")).to_have_text(built_report.questions[3].text)
    items.first.click()
    expect(page.locator("#detail h2")).to_have_text(built_report.questions[3].text)
    expect(chunk_scripts).to_have_count(1)
    assert chunk_scripts.first.get_attribute("src").endswith("chunk-00001.js")
