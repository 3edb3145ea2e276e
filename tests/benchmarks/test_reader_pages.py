"""docs/leaderboard.md and docs/claims/*.md are what the saved runs give, to the character: the declared
experiments' saved runs, restored into a scratch store, ranked and checked by the package's own code."""

from __future__ import annotations

import os
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.slow,
              pytest.mark.skipif(not os.environ.get("HOPKIT_DATA_DIR"),
                                 reason="HOPKIT_DATA_DIR is not set: the runs are scored on the samples")]


@pytest.fixture(scope="module")
def built(load_benchmark: Callable[[str], ModuleType], restored: Any) -> dict[Path, str]:
    return load_benchmark("reader_pages").pages(restored)


def test_the_leaderboard_and_the_claims_pages_are_what_the_saved_runs_give(built: dict[Path, str]) -> None:
    assert any(path.name == "leaderboard.md" for path in built) and len(built) > 1
    for path, text in built.items():
        assert path.exists(), f"{path} is missing: hopkit campaign pages --write"
        assert path.read_text(encoding="utf-8") == text, f"{path} differs: hopkit campaign pages"


def test_the_leaderboard_shows_every_method_with_a_saved_run_and_links_the_claims(built: dict[Path, str]) -> None:
    page = next(text for path, text in built.items() if path.name == "leaderboard.md")
    for method in ("ircot", "migres", "searchain", "flare", "self-ask", "alce"):
        assert f"| {method} |" in page or f"[{method}](" in page, method
    assert "[searchain](claims/searchain.md)" in page and "## strategyqa" in page


def test_the_agents_papers_have_claims_pages_and_adaptive_rag_s_shows_both_routers(built: dict[Path, str]) -> None:
    """Search-o1's Table 3 and the Search-R1 paper's Table 2 are checked on their own pages; Adaptive-RAG's page
    counts where each router sent the questions from the saved traces and checks the trained router's run too."""
    by_name = {path.name: text for path, text in built.items()}
    assert "| search-r1 vs oner | EM | hotpotqa | 30 |" in by_name["search-r1.md"]
    assert "| oner vs ircot | EM | hotpotqa | 30 |" in by_name["search-r1.md"]
    assert "| search-o1 vs nor | EM | hotpotqa | 30 |" in by_name["search-o1.md"]
    assert "[search-r1](claims/search-r1.md)" in by_name["leaderboard.md"]
    page = by_name["adaptive-rag.md"]
    assert ("Routes: `adaptive-rag` (the prompted classifier) sent all 90 questions of hotpotqa, 2wikimultihopqa "
            "and musique to OneR.") in page
    assert "sent all 90 questions of hotpotqa, 2wikimultihopqa and musique to IRCoT." in page
    assert "| adaptive-rag-trained vs ircot | EM | hotpotqa | 30 | 43.3 | 43.3 |" in page
