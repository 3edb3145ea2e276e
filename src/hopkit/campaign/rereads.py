"""IRCoT's saved re-reads: each question's collected paragraphs read again by another reader (the
paper's own-context reader, or the chat reader), kept in ``benchmarks/results/`` by question."""

from __future__ import annotations

import json
from typing import Any

from hopkit.campaign.environment import RESULTS

REREADS = {"own": RESULTS / "reader_context_rereads.json", "chat": RESULTS / "reader_chat_rereads.json"}
Rereads = dict[str, dict[str, Any]]


def load_rereads(variant: str) -> Rereads:
    path = REREADS[variant]
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def save_rereads(variant: str, rereads: Rereads) -> None:
    """Write the re-reads whole (a temporary file moved into place: an interruption keeps the last copy)."""
    path = REREADS[variant]
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(rereads, indent=1, sort_keys=True), encoding="utf-8")
    partial.replace(path)
