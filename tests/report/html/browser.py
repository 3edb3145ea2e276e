"""Where the report's browser tests find Chromium (the fixture is in conftest.py).

Playwright's own browser downloads do not work on these machines, so the browser is the system's
(``$HOPKIT_CHROMIUM``, else ``chromium`` on the PATH). Without it (or without the playwright package)
the browser tests skip, saying why, except in CI (``CI=true``), where they fail.
"""

from __future__ import annotations

import importlib.util
import os
import shutil


def chromium_path() -> str | None:
    """The Chromium binary to drive (``$HOPKIT_CHROMIUM``, else ``chromium`` on the PATH), or None."""
    named = os.environ.get("HOPKIT_CHROMIUM")
    if named:
        return named if os.access(named, os.X_OK) else None
    return shutil.which("chromium") or shutil.which("chromium-browser")


def missing() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if importlib.util.find_spec("playwright") is None:
        return "the playwright package is not installed (pip install -e '.[test]')"
    if chromium_path() is None:
        return "no Chromium binary (apt-get install -y chromium, or set HOPKIT_CHROMIUM to one)"
    return None

