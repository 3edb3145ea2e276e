"""The HTML report of runs a real model made (the embedded SmolLM2, the real BM25 index, SQLite, with
``--trace-prompts``), opened in headless Chromium: the traces and prompts a real IRCoT run stores
render, not only scripted ones."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # the browser fixture says why; in CI a missing package is an error
    if os.environ.get("CI") == "true":
        raise
    pytest.skip("browser tests skipped: the playwright package is not installed (pip install -e '.[test]')",
                allow_module_level=True)

from hopkit.cli import main

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.browser]

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "src" / "hopkit" / "quickstart" / "sample.jsonl"
PIPELINES = ROOT / "src" / "hopkit" / "configs" / "pipelines"


def test_a_report_of_smollm2_runs_shows_their_real_traces(browser: Any, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOPKIT_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("HOPKIT_DB_URL", raising=False)
    db = f"sqlite:///{tmp_path / 'hopkit.db'}"
    assert main(["--db", db, "ingest", "jsonl", str(SAMPLE), "--name", "qs", "--limit", "2"]) == 0
    for config in ("oner.yaml", "ircot.yaml"):
        assert main(["--db", db, "run", str(PIPELINES / config), "--dataset", "qs", "--llm", "smollm2",
                     "--quiet", "--trace-prompts"]) == 0
    out = tmp_path / "report"
    assert main(["--db", db, "report", "--out", str(out)]) == 0

    context = browser.new_context(viewport={"width": 1300, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto((out / "index.html").resolve().as_uri())
        expect(page.locator("table.overview tbody tr td.run-label")).to_contain_text(["oner", "ircot"])
        page.goto((out / "explorer.html").resolve().as_uri())
        expect(page.locator("#count")).to_have_text("2 of 2 questions match")
        page.locator("#qlist li").first.click()
        ircot = page.locator("#detail section.run", has=page.locator("h3", has_text="ircot"))
        ircot.locator("details.trace > summary").click()
        kinds = ircot.locator("ol.timeline > li.step .kind")
        expect(kinds.first).to_have_text("retrieve")
        expect(kinds.last).to_have_text("read")
        expect(ircot.locator("li.step.kind-retrieve table.hits tr").first).to_be_visible()
        reason = ircot.locator("li.step.kind-reason").first
        expect(reason).to_be_visible()
        prompt = reason.locator("details.raw", has_text="Prompt 1").locator("pre")
        expect(prompt).to_be_hidden()  # folded
        reason.locator("details.raw > summary", has_text="Prompt 1").click()
        expect(prompt).to_contain_text(page.locator("#detail article.question h2").inner_text())
    finally:
        context.close()
    assert errors == [], f"the page raised JavaScript errors: {errors}"
