"""kill -9 during an index save, then the next build: nothing of the killed save is left behind.

Issue 28 item 6: a killed index build left its ``.tmp`` folder beside the indexes for good.
The child process is a real index build whose save is held open (it waits after writing
its first file), killed with SIGKILL; the parent then builds the same index.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hopkit.records import Paragraph, corpus_fingerprint
from hopkit.retrieval import index_folders, index_store
from hopkit.retrieval.index_store import load_or_build

pytestmark = pytest.mark.unit

PARAGRAPHS = [Paragraph(i, f"Title {i}", f"Paragraph {i} about town {i % 7}.") for i in range(50)]

def held_build(holds: str) -> str:
    """A child's script: a real BM25 build of ``PARAGRAPHS`` in which ``holds`` (code defining ``held`` and
    putting it in place) prints where it stopped and waits to be killed."""
    return textwrap.dedent("""
        import sys, time
        from hopkit.records import Paragraph, corpus_fingerprint
        from hopkit.retrieval import bm25, bm25_build
        from hopkit.retrieval.index_store import load_or_build
    """) + textwrap.dedent(holds) + textwrap.dedent("""
        paragraphs = [Paragraph(i, f"Title {i}", f"Paragraph {i} about town {i % 7}.") for i in range(50)]
        load_or_build("bm25", paragraphs, sys.argv[1], corpus_fingerprint(paragraphs))
    """)


def killed_when_it_says(word: str, script: str, folder: Path) -> None:
    """Run ``script`` building into ``folder``; kill it with SIGKILL once it prints ``word``."""
    child = subprocess.Popen([sys.executable, "-c", script, str(folder)], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == word
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)


HELD_SAVE = held_build("""
    save = bm25.BM25Retriever.save

    def held(self, path):
        save(self, path)
        print("saving", flush=True)
        time.sleep(600)

    bm25.BM25Retriever.save = held
""")


def test_the_next_build_removes_what_a_killed_save_left(tmp_path: Path) -> None:
    killed_when_it_says("saving", HELD_SAVE, tmp_path)
    left = list(tmp_path.glob(".*.tmp-*"))
    assert len(left) == 1 and any(left[0].iterdir())  # the half-written save of the killed process

    retriever = load_or_build("bm25", PARAGRAPHS, tmp_path, corpus_fingerprint(PARAGRAPHS))
    assert retriever.retrieve("town 3", k=1)
    assert list(tmp_path.glob(".*.tmp-*")) == []
    assert len([p for p in tmp_path.iterdir()]) == 1


HELD_BUILD = held_build("""
    def held(*args, **kwargs):
        print("placing", flush=True)
        time.sleep(600)

    bm25_build._placed = held
""")


def test_the_next_build_removes_the_postings_a_killed_build_spilled(tmp_path: Path) -> None:
    killed_when_it_says("placing", HELD_BUILD, tmp_path)
    spilled = list(tmp_path.glob(".*.tmp-*/hopkit-bm25-postings-*/tokens.bin"))
    assert len(spilled) == 1 and spilled[0].stat().st_size > 0  # beside the index, not in the system's /tmp

    retriever = load_or_build("bm25", PARAGRAPHS, tmp_path, corpus_fingerprint(PARAGRAPHS))
    assert retriever.retrieve("town 3", k=1)
    assert [p.name for p in tmp_path.iterdir()] == [p.name for p in tmp_path.glob("bm25-*")]


def test_a_save_folder_of_a_live_process_is_left_alone(tmp_path: Path) -> None:
    """A concurrent build still writing its folder must not lose it to another's clean-up."""
    fingerprint = corpus_fingerprint(PARAGRAPHS)
    name = index_folders.index_path(tmp_path, "bm25", fingerprint, {
        "k1": 1.2, "b": 0.75, "method": "lucene", "tokenizer": index_store.TOKENIZER_ID}).name
    live = tmp_path / f".{name}.tmp-{index_folders._HOST}-{os.getpid()}-abc"
    live.mkdir()
    stranger = tmp_path / f".{name}.tmp-otherhost-1-xyz"  # another machine's, on a shared disk: too young
    stranger.mkdir()
    load_or_build("bm25", PARAGRAPHS, tmp_path, fingerprint)
    assert live.exists() and stranger.exists()
