"""Screenshots of an HTML report in headless Chromium, for the README (docs/img/).

    .venv/bin/python scripts/report_screenshots.py REPORT_FOLDER [--question ID] [--run LABEL] [--out docs/img]

Writes ``report-overview.png`` (the overview page) and ``report-question.png`` (one question of the
explorer with the named run's trace unfolded: by default the first question and the first run).
Needs playwright and Debian's chromium (``apt-get install -y chromium``; or set HOPKIT_CHROMIUM).
"""

from __future__ import annotations

import argparse
import os
import shutil
from pathlib import Path

from playwright.sync_api import sync_playwright


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("report", type=Path, help="a folder `hopkit report` wrote")
    parser.add_argument("--question", default=None, help="dataset/question id to show (default: the first)")
    parser.add_argument("--run", default=None, help="label of the run whose trace to unfold (default: the first)")
    parser.add_argument("--out", type=Path, default=Path("docs/img"))
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--height", type=int, default=1500, help="of the question's screenshot")
    args = parser.parse_args()
    chromium = os.environ.get("HOPKIT_CHROMIUM") or shutil.which("chromium")
    if chromium is None:
        parser.error("no chromium found: apt-get install -y chromium, or set HOPKIT_CHROMIUM")
    args.out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": args.width, "height": 1000})
        page.goto((args.report / "index.html").resolve().as_uri())
        page.screenshot(path=str(args.out / "report-overview.png"), full_page=True)
        explorer = (args.report / "explorer.html").resolve().as_uri()
        page.goto(explorer + (f"#q={args.question}" if args.question else ""))
        if not args.question:
            page.locator("#qlist li").first.click()
        page.wait_for_selector("#detail article.question")
        run = page.locator("#detail section.run")
        if args.run:
            run = run.filter(has=page.locator("h3", has_text=args.run))
        run.first.locator("details.trace > summary").click()
        # tall enough for the question, its gold and the unfolded trace without scrolling
        page.set_viewport_size({"width": args.width, "height": args.height})
        page.screenshot(path=str(args.out / "report-question.png"))
        browser.close()
    print(f"wrote {args.out / 'report-overview.png'} and {args.out / 'report-question.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
