"""A report built from real runs (IRCoT, OneR and NoR through hopkit's runner into a SQLite store,
with a scripted model at the LLM boundary, written by ``hopkit report``), and the headless Chromium
that drives it in the browser tests."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

from hopkit.cli import main
from hopkit.records import Query
from hopkit.store.store import Store

from .browser import chromium_path
from .browser import missing as browser_missing

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "src" / "hopkit" / "quickstart" / "sample.jsonl"
PIPELINES = ROOT / "src" / "hopkit" / "configs" / "pipelines"


@dataclass(frozen=True)
class BuiltReport:
    """The store, the report folder, the stored questions and what each run was scripted to answer."""

    db: str
    out: Path
    questions: list[Query]
    ircot_right: frozenset[str]
    oner_right: frozenset[str]
    ircot_failed: str


def _script(path: Path, completions: list[str]) -> Path:
    path.write_text("_target_: hopkit.llm.fake.ScriptedLLM\nscript: " + json.dumps(completions) + "\n",
                    encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def built_report(tmp_path_factory: pytest.TempPathFactory) -> BuiltReport:
    """Three runs on four sample questions, and ``hopkit report`` of them.

    IRCoT (three reasoning steps and its reader per question) answers questions 1 and 3 right,
    question 2 wrong, and fails on question 4 (its script runs out after the first retrieval);
    OneR answers 1 and 2 right; NoR answers every question wrong.
    """
    tmp = tmp_path_factory.mktemp("html-report")
    db = f"sqlite:///{tmp / 'hopkit.db'}"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOPKIT_HOME", str(tmp / "home"))
        patch.delenv("HOPKIT_DB_URL", raising=False)
        assert main(["--db", db, "ingest", "jsonl", str(SAMPLE), "--name", "qs", "--limit", "4"]) == 0
        questions = Store.connect(db).queries("qs")
        ircot: list[str] = []
        for i, q in enumerate(questions[:3]):
            answer = q.answers[0] if i != 1 else "Brannock Ford"
            ircot += [f"The question asks about {q.text.split()[-1].rstrip('?')}. It is long.",
                      "I recall the place.", f"So the answer is: {answer}.", answer]
        oner = [q.answers[0] if i < 2 else "Velmora" for i, q in enumerate(questions)]
        nor = ["Velmora"] * len(questions)
        runs = (("ircot.yaml", ircot), ("oner.yaml", oner), ("nor.yaml", nor))
        for config, completions in runs:
            llm = _script(tmp / f"llm-{config}", completions)
            assert main(["--db", db, "run", str(PIPELINES / config), "--dataset", "qs", "--llm", str(llm),
                         "--quiet"]) == 0
        out = tmp / "report"
        assert main(["--db", db, "report", "--out", str(out)]) == 0
    ids = [q.id for q in questions]
    return BuiltReport(db, out, questions, frozenset({ids[0], ids[2]}), frozenset(ids[:2]), ids[3])


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """A headless Chromium browser (a ``playwright.sync_api.Browser``), closed after the module."""
    missing = browser_missing()
    if missing is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"browser tests cannot run in CI: {missing}")
        pytest.skip(f"browser tests skipped: {missing}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()
