"""``hopkit corpus add`` and ``hopkit corpora``: a corpus stored once, killed with SIGKILL mid-way and resumed
by the same command, each passage stored once and in the file's order, on SQLite and PostgreSQL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import create_engine

import hopkit
from hopkit import environment
from hopkit.errors import StoreError
from hopkit.llm.testing_hub import loopback_only, serve_fake_hub
from hopkit.records import Paragraph, corpus_fingerprint
from hopkit.store import DBConnection, Store
from hopkit.store.models import Base

from ..data.corpus_fixtures import dpr_file, expected_wiki18, hopkit_file, wiki18_file
from .running import StoreCli

pytestmark = pytest.mark.unit

KILL_FILE_PASSAGES = 60_000
KILL_BATCH = 100


def test_corpus_add_and_corpora(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli = StoreCli(db, capsys)
    code, _, err = cli("corpora")
    assert code == 2 and "no hopkit store at" in err  # as `hopkit datasets`: nothing is created
    wiki = wiki18_file(tmp_path / "wiki-18.jsonl.gz", 3000, first_id=100)
    out = cli.ok("corpus", "add", "wiki18", str(wiki), "--batch-size", "700")
    fingerprint = corpus_fingerprint([Paragraph(i, title, body)
                                      for i, (_, title, body) in enumerate(expected_wiki18(3000, 100))])
    assert out == (f"stored corpus wiki18: 3,000 passages (flashrag) from {wiki}; fingerprint {fingerprint}\n")
    assert cli.ok("corpus", "add", "wiki18", str(wiki)) == "corpus wiki18 was already stored whole (3,000 passages)\n"
    cli.ok("corpus", "add", "psgs", str(dpr_file(tmp_path / "psgs_w100.tsv.bz2")), "--quiet")
    cli.ok("corpus", "add", "mine", str(hopkit_file(tmp_path / "mine.jsonl")), "--format", "hopkit")
    lines = cli.ok("corpora").splitlines()
    assert lines[0].split() == ["name", "passages", "state", "fingerprint", "format", "source"]
    assert [line.split()[:5] for line in lines[1:]] == [
        ["mine", "3", "complete", lines[1].split()[3], "hopkit"],
        ["psgs", "3", "complete", lines[2].split()[3], "dpr"],
        ["wiki18", "3,000", "complete", fingerprint[:16], "flashrag"]]
    assert lines[3].endswith(str(wiki.resolve()))
    assert Store.connect(db).datasets() == []


def test_bad_input_is_one_line_and_exit_2(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli = StoreCli(db, capsys)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "1", "contents": "T\\nx"}\n{"id": "2", "contents": [5]}\n', encoding="utf-8")
    code, _, err = cli("corpus", "add", "bad", str(bad), "--quiet")
    assert code == 2 and err.startswith(f"hopkit: error: {bad}:2") and err.count("\n") == 1
    code, _, err = cli("corpus", "add", "bad", str(tmp_path / "absent.jsonl"))
    assert code == 2 and "no such corpus file" in err and err.count("\n") == 1
    code, _, err = cli("corpus", "add", "mine")
    assert code == 2 and "'mine' is not a corpus hopkit downloads by name (wiki18); give the corpus file" in err
    wiki = wiki18_file(tmp_path / "w.jsonl", 10)
    cli.ok("corpus", "add", "w", str(wiki))
    code, _, err = cli("corpus", "add", "w", str(dpr_file(tmp_path / "p.tsv")))
    assert code == 2 and "is stored from" in err and "--replace" in err and err.count("\n") == 1


def _empty_postgres(url: str) -> str:
    engine = create_engine(url)
    try:
        Base.metadata.drop_all(engine)
    finally:
        engine.dispose()
    return url


def _run_until_killed(db: str, source: Path, tmp_path: Path) -> int:
    """Start ``hopkit corpus add`` in a process of its own, SIGKILL it once some batches are committed and
    before the last, and return how many passages were stored then."""
    env = dict(os.environ)
    src = str(Path(hopkit.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    reader = Store(DBConnection(db).get_session_factory())
    errors = tmp_path / "stderr.txt"
    with errors.open("w") as stderr:
        process = subprocess.Popen([sys.executable, "-m", "hopkit.cli", "--db", db, "corpus", "add", "wiki18",
                                    str(source), "--batch-size", str(KILL_BATCH)],
                                   stdout=subprocess.DEVNULL, stderr=stderr, env=env)
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and process.poll() is None:
                found = reader.corpora.find("wiki18")
                if found is not None and found.passages >= 20 * KILL_BATCH:
                    break
                time.sleep(0.01)
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait()
    assert process.returncode == -signal.SIGKILL, f"it ended before the kill: {errors.read_text()}"
    killed = reader.corpora.find("wiki18")
    assert killed is not None and not killed.complete and 0 < killed.passages < KILL_FILE_PASSAGES
    return killed.passages


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def test_a_killed_corpus_add_resumes_and_stores_each_passage_once(
        backend: str, db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], request: pytest.FixtureRequest,
) -> None:
    url = db if backend == "sqlite" else _empty_postgres(request.getfixturevalue("postgres_url"))
    cli = StoreCli(url, capsys)
    source = wiki18_file(tmp_path / "wiki-18.jsonl.gz", KILL_FILE_PASSAGES, first_id=1)
    stored_at_kill = _run_until_killed(url, source, tmp_path)

    lines = cli.ok("corpora").splitlines()
    assert lines[1].split()[:3] == ["wiki18", f"{stored_at_kill:,}", "INCOMPLETE"]
    assert "wiki18 is INCOMPLETE: no run uses it; run `hopkit corpus add wiki18" in lines[2]
    store = Store.connect(url)
    with pytest.raises(StoreError, match="incomplete"):
        store.corpora.get("wiki18")

    out = cli.ok("corpus", "add", "wiki18", str(source), "--quiet", "--batch-size", "5000")
    assert f"resumed after {stored_at_kill:,} stored before" in out
    info = store.corpora.get("wiki18")
    assert info.complete and info.passages == KILL_FILE_PASSAGES == store.corpora.count(info.corpus_id)
    expected = expected_wiki18(KILL_FILE_PASSAGES, first_id=1)
    position = 0
    for batch in store.corpora.passages("wiki18", size=20_000):
        for passage in batch:
            assert (passage.id, passage.source_id, passage.title, passage.text) == (position, *expected[position])
            position += 1
    assert position == KILL_FILE_PASSAGES


WIKI18_ON_HUB = "datasets/PeterJinGo/wiki-18-corpus/wiki-18.jsonl.gz"


def test_wiki18_by_name_is_downloaded_once_from_the_hub(db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    cli = StoreCli(db, capsys)
    monkeypatch.setenv(environment.HOPKIT_CACHE_DIR, str(tmp_path / "cache"))
    body = wiki18_file(tmp_path / "published.jsonl.gz", 1200, first_id=0).read_bytes()
    with loopback_only() as hosts:
        with serve_fake_hub({}) as empty:  # a Hub without the file: one line naming it, exit 2
            monkeypatch.setenv(environment.HF_ENDPOINT, empty.url)
            code, _, err = cli("corpus", "add", "wiki18", "--quiet")
            assert code == 2 and "cannot download hf://datasets/PeterJinGo/wiki-18-corpus/wiki-18.jsonl.gz" in err
            assert len(err.strip().splitlines()) == 1, err
        with serve_fake_hub({WIKI18_ON_HUB: body}) as hub:
            monkeypatch.setenv(environment.HF_ENDPOINT, hub.url)
            out = cli.ok("corpus", "add", "wiki18", "--quiet")
            assert out.startswith("stored corpus wiki18: 1,200 passages (flashrag) from "
                                  "hf://datasets/PeterJinGo/wiki-18-corpus/wiki-18.jsonl.gz;")
            asked = len(hub.requests)
            assert cli.ok("corpus", "add", "wiki18") == "corpus wiki18 was already stored whole (1,200 passages)\n"
            assert len(hub.requests) == asked  # read from the cache
    assert set(hosts) <= {"127.0.0.1"}, hosts
    passages = [p for batch in Store.connect(db).corpora.passages("wiki18") for p in batch]
    assert [(p.id, p.source_id, p.title, p.text) for p in passages] == [
        (i, *row) for i, row in enumerate(expected_wiki18(1200, first_id=0))]
    assert cli.ok("corpora").splitlines()[1].split()[-1] == "hf://datasets/PeterJinGo/wiki-18-corpus/wiki-18.jsonl.gz"
