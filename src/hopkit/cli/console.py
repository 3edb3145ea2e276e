"""Where the command line's log records go: a quiet console, and a log file per run.

The console shows warnings and errors (everything with ``--verbose``), written through
tqdm so that a line never lands on a progress bar. A record about one question (logged
with ``extra={"question": id}``, such as a failed question) goes to the run's log file
instead, whose path the command prints; the console gets the run's summary. Libraries that
print their own records (huggingface_hub) print them once.
"""

from __future__ import annotations

import logging
import sys
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

from tqdm import tqdm

from hopkit.environment import hopkit_home

FORMAT = "%(levelname)s %(name)s: %(message)s"
# Libraries with a console handler of their own: their records are not passed on to ours as well.
_OWN_HANDLERS = ("huggingface_hub",)


class _ConsoleHandler(logging.Handler):
    """Writes each record to stderr above any progress bar."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            tqdm.write(self.format(record), file=sys.stderr)
        except Exception:  # noqa: BLE001 (logging's own contract: report, never raise)
            self.handleError(record)


class _HopkitInfoOrAnyWarning(logging.Filter):
    """hopkit's own records from INFO up, other libraries' from WARNING up (httpx logs each request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.WARNING or record.name.split(".")[0] == "hopkit"


class _NotAboutOneQuestion(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not hasattr(record, "question")


_console_filter = _NotAboutOneQuestion()


def configure_console(verbose: bool) -> None:
    """Warnings (with ``verbose``, debug messages too) to stderr; per-question records only when verbose."""
    level = logging.DEBUG if verbose else logging.WARNING
    handler = _ConsoleHandler()
    handler.setLevel(level)  # filter here too: bm25s sets its own logger to DEBUG on import
    handler.setFormatter(logging.Formatter(FORMAT))
    if not verbose:
        handler.addFilter(_console_filter)
    logging.basicConfig(level=level, handlers=[handler])
    for name in _OWN_HANDLERS:
        logging.getLogger(name).propagate = False


@contextmanager
def run_log(command: str) -> Iterator[Path | None]:
    """Keep every record of the block (per-question ones included, from INFO up) in a new log file.

    Yields:
        The file, ``<HOPKIT_HOME>/logs/<time>-<command>.log``, or None when it cannot be made
        (then nothing is filtered from the console, so no record is lost).
    """
    folder = hopkit_home() / "logs"
    path = folder / f"{datetime.now(timezone.utc):%Y%m%d-%H%M%S-%f}-{command}.log"
    root = logging.getLogger()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler | None = logging.FileHandler(path, encoding="utf-8", delay=True)
    except OSError:
        handler = None
    if handler is None:
        consoles = [h for h in root.handlers if _console_filter in h.filters]
        for console in consoles:
            console.removeFilter(_console_filter)
        try:
            yield None
        finally:
            for console in consoles:
                console.addFilter(_console_filter)
        return
    handler.setLevel(logging.INFO)
    handler.addFilter(_HopkitInfoOrAnyWarning())
    handler.setFormatter(logging.Formatter("%(asctime)s " + FORMAT))
    previous = root.level
    root.addHandler(handler)
    root.setLevel(min(previous, logging.INFO))
    try:
        yield path
    finally:
        root.removeHandler(handler)
        root.setLevel(previous)
        handler.close()
