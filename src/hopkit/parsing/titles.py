"""IIRC's generated page titles (IRCoT paper, Appendix B): a JSON list or comma-separated."""

from __future__ import annotations

import json


def parse_titles(generation: str) -> list[str]:
    """The titles in a generation: a JSON list (GPT3 prompts) or comma-separated (Flan-T5)."""
    text = generation.strip()
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError:
        parsed = None
    if isinstance(parsed, list):
        candidates = [str(item).strip() for item in parsed]
    else:
        cleaned = text.replace('"', "").replace("[", "").replace("]", "")
        candidates = [piece.strip() for piece in cleaned.split(",")]
    return list(dict.fromkeys(c for c in candidates if c))
