"""Headless Chromium for the report's browser tests: Debian's chromium driven by Playwright.

Playwright's own browser downloads do not work on these machines, so the browser is the system's
(``$HOPKIT_CHROMIUM``, else ``chromium`` on the PATH). Without it (or without the playwright package)
the browser tests skip, saying why, except in CI (``CI=true``), where they fail.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from typing import Iterator

import pytest


def chromium_path() -> str | None:
    """The Chromium binary to drive (``$HOPKIT_CHROMIUM``, else ``chromium`` on the PATH), or None."""
    named = os.environ.get("HOPKIT_CHROMIUM")
    if named:
        return named if os.access(named, os.X_OK) else None
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _missing() -> str | None:
    if importlib.util.find_spec("playwright") is None:
        return "the playwright package is not installed (pip install -e '.[test]')"
    if chromium_path() is None:
        return "no Chromium binary (apt-get install -y chromium, or set HOPKIT_CHROMIUM to one)"
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """A headless Chromium browser (a ``playwright.sync_api.Browser``), closed after the module."""
    missing = _missing()
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
