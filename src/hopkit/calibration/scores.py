"""Calibration scores kept in one JSON file, written as each item is done, so a stopped
calibration resumes; a file made with other settings (judge, hits, retrieval) is refused, not mixed."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Mapping

from hopkit.errors import ConfigError


class ScoreFile:
    """Per-question scores in one JSON file, written as each question is done (atomically).

    Raises:
        ConfigError: the file holds scores made with other settings, or is not such a file.
    """

    def __init__(self, path: Path, settings: Mapping[str, Any]) -> None:
        self.path = path
        self.settings = dict(settings)
        self.items: dict[str, Any] = {}
        if path.exists():
            try:
                content = json.loads(path.read_text(encoding="utf-8"))
                stored = content["settings"]
                self.items = dict(content["items"])
            except (ValueError, KeyError, TypeError) as exc:
                raise ConfigError(f"{path}: not a hopkit calibration file ({exc}); "
                                  "move it away to start again") from None
            if stored != self.settings:
                raise ConfigError(f"{path} holds scores made with other settings ({stored}, now {self.settings}); "
                                  "move it away to start again")

    def add(self, key: str, record: Mapping[str, Any]) -> None:
        """Keep one question's scores and write the file."""
        self.items[key] = dict(record)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_name(self.path.name + ".partial")
        partial.write_text(json.dumps({"settings": self.settings, "items": self.items}, indent=1) + "\n",
                           encoding="utf-8")
        os.replace(partial, self.path)


def score_file_name(*parts: str) -> str:
    """A file name made of ``parts``, with anything but letters, digits, '.', '-' and '_' replaced."""
    return "-".join(re.sub(r"[^0-9A-Za-z._-]+", "_", part) for part in parts) + ".json"
