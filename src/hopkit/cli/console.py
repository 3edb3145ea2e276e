"""Where the command line's log records go: a quiet console, and a log file per run.

The console shows warnings and errors (everything with ``--verbose``), written through
tqdm so that a line never lands on a progress bar. A record about one question (logged
with ``extra={"question": id}``, such as a failed question) goes to the run's log file
instead, whose path the command prints; the console gets the run's summary. Libraries that
print their own records (huggingface_hub) print them once.

A log file that cannot be written (its disk is full) is given up with one warning naming it,
never with Python's ``--- Logging error ---`` blocks: from then on every record goes to the
console, so none is lost, and :func:`log_kept` tells the command not to point at the file.
"""

from __future__ import annotations

import logging
import os
import sys
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator, Sequence

from tqdm import tqdm

from hopkit.environment import hopkit_home
from hopkit.full_disk import is_disk_full

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
# Run log files given up on (they could not be written): the commands do not point at them.
_abandoned: set[Path] = set()


class _RunLogHandler(logging.FileHandler):
    """The run's log file; if it cannot be written (a full disk), it is closed and given up with one warning,
    and the console filters are lifted, so that the records still reach someone."""

    def __init__(self, path: Path, consoles: Sequence[logging.Handler]) -> None:
        super().__init__(path, encoding="utf-8", delay=True)
        self.path = path
        self.consoles = tuple(consoles)
        self.given_up = False

    def emit(self, record: logging.LogRecord) -> None:
        if not self.given_up:
            super().emit(record)

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 (logging's name)
        error = sys.exc_info()[1]
        if not isinstance(error, OSError) or self.given_up:
            super().handleError(record)
            return
        self.give_up(error)
        # the record that failed, to the consoles that left it to the file (they came first and filtered it out)
        if not _console_filter.filter(record):
            handlers = logging.getLogger().handlers
            for console in self.consoles:
                if console.level <= record.levelno and console in handlers and self in handlers \
                        and handlers.index(console) < handlers.index(self):
                    console.handle(record)

    def give_up(self, error: OSError) -> None:
        """Close the file, say so once, and let the consoles show every record from now on."""
        self.given_up = True
        _abandoned.add(self.path)
        stream, self.stream = self.stream, None  # type: ignore[assignment]
        if stream is not None:
            try:
                stream.close()
            except OSError:
                pass  # what it still held is lost with it
        for console in self.consoles:
            console.removeFilter(_console_filter)
        reason = os.strerror(error.errno) if error.errno else str(error)
        advice = "free space on its disk" if is_disk_full(error) else "check that it can be written"
        logging.getLogger(__name__).warning(
            "cannot write the log file %s (%s): %s; from now on every record goes to the console", self.path, reason,
            advice)

    def close(self) -> None:
        """Close the file; the last records failing to reach the disk is given up on as at any other time."""
        try:
            super().close()
        except OSError as error:
            if not self.given_up:
                self.give_up(error)


def log_kept(path: Path | None) -> bool:
    """Whether ``path``, the file :func:`run_log` gave, holds the run's records (it exists and was not
    given up on)."""
    return path is not None and path not in _abandoned and path.exists()


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
    consoles = [h for h in root.handlers if _console_filter in h.filters]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handler: _RunLogHandler | None = _RunLogHandler(path, consoles)
    except OSError:
        handler = None
    if handler is None:
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
        for console in consoles:
            if _console_filter not in console.filters:
                console.addFilter(_console_filter)
