"""Wikipedia-size ingest: a generated wiki-18 file through ``hopkit corpus add``, killed half way and resumed.

What ``python -m benchmarks.big_corpus corpus-add`` measures (issue 72, "Wikipedia-size ingest"):

1. a generated file in the layout of Search-R1's ``wiki-18.jsonl.gz`` (the Hub dataset
   PeterJinGo/wiki-18-corpus): a gzipped tar archive holding one JSONL file of ``{"id", "contents"}``
   lines, ids strings from ``"0"``, ``contents`` the title in double quotes, a newline, then a passage of
   100 made-up words (Zipf-distributed, written by numpy a chunk at a time; an article's title shared
   by its passages, about six of them, as the dump splits an article);
2. ``hopkit corpus add`` on it in a fresh store: wall time, the child's peak resident memory, the
   store's size on disk;
3. that store read in id order as an index build reads it (passages/s), then deleted;
4. the same ingest into a second store, killed (``SIGKILL``) once about ``kill_at`` of the passages are
   stored, then the same command again: the resume's wall time, and every passage stored once (as many
   rows as the file holds passages, their source ids distinct, each at its own position, the
   fingerprint the uninterrupted store's).

The stored count is polled read-only from the SQLite file (the ``corpora`` row a batch's transaction
advances), which is also the progress shown.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hopkit.campaign.page_sections import markdown_table
from hopkit.campaign.probes import SYLLABLES
from hopkit.environment import variables_matching
from hopkit.store.connection import DBConnection, transaction
from hopkit.store.models import CorpusPassageRow
from hopkit.store.store import Store
from hopkit.store.stored_corpus import READ_BATCH, ParagraphSource, paragraph_batches

WIKI18_PASSAGES = 21_015_324  # wiki18_100w, the 2018 Wikipedia of DPR in 100-word passages
WORDS_PER_PASSAGE = 100
PASSAGES_PER_ARTICLE = 6  # about 21.0M passages of about 3.2M articles
TITLE_WORDS = 4096  # an article's title: two words, its number's digits in base 4096
MEMBER = "wiki_dump.jsonl"  # the one file Search-R1's archive holds
CHUNK = 50_000
TABLE_BITS = 22  # a word drawn by one lookup in a table of 2**22 slots filled by the Zipf weights


@dataclass(frozen=True)
class Lexicon:
    """Made-up words (the most frequent the shortest, as in English) as one byte string, each followed by
    a space, with where each starts and its length (with the space), and a lookup table to draw them."""

    words: tuple[str, ...]
    blob: np.ndarray
    starts: np.ndarray
    lengths: np.ndarray
    draw: np.ndarray

    @classmethod
    def made_up(cls, vocabulary: int) -> Lexicon:
        base, words = len(SYLLABLES), []
        for rank in range(vocabulary):
            syllables, rest = [], rank
            while True:
                syllables.append(SYLLABLES[rest % base])
                rest = rest // base - 1
                if rest < 0:
                    break
            words.append("".join(syllables) + ("n" if rank % 2 else ""))
        encoded = [word.encode("ascii") + b" " for word in words]
        lengths = np.array([len(word) for word in encoded], dtype=np.int64)
        weights = 1.0 / np.arange(1, vocabulary + 1)
        slots = np.floor(np.cumsum(weights / weights.sum()) * 2**TABLE_BITS).astype(np.int64)
        draw = np.repeat(np.arange(vocabulary, dtype=np.int32), np.diff(np.concatenate([[0], slots])))
        draw = np.concatenate([draw, np.full(2**TABLE_BITS - draw.size, vocabulary - 1, dtype=np.int32)])
        blob = np.frombuffer(b"".join(encoded), dtype=np.uint8)
        return cls(tuple(words), blob, np.cumsum(lengths) - lengths, lengths, draw)


def passage_lines(lexicon: Lexicon, first: int, count: int, seed: int) -> bytes:
    """Lines ``first`` to ``first + count - 1`` of the file, the same for the same arguments."""
    rng = np.random.default_rng([seed, first])
    picks = lexicon.draw[rng.integers(0, lexicon.draw.size, size=count * WORDS_PER_PASSAGE)]
    lengths = lexicon.lengths[picks]
    ends = np.cumsum(lengths)
    begins = ends - lengths
    gather = np.arange(int(ends[-1]), dtype=np.int64) + np.repeat(lexicon.starts[picks] - begins, lengths)
    text = lexicon.blob[gather].tobytes()
    bounds = ends[WORDS_PER_PASSAGE - 1::WORDS_PER_PASSAGE].tolist()
    lines, start = [], 0
    for offset, end in enumerate(bounds):
        position = first + offset
        article = position // PASSAGES_PER_ARTICLE
        title = f"{lexicon.words[article % TITLE_WORDS].title()} {lexicon.words[article // TITLE_WORDS].title()}"
        lines.append(b'{"id": "%d", "contents": "\\"%s\\"\\n%s."}\n' % (position, title.encode(), text[start:end - 1]))
        start = end
    return b"".join(lines)


def _chunks(passages: int, vocabulary: int, seed: int) -> Iterator[tuple[int, bytes]]:
    lexicon = Lexicon.made_up(vocabulary)
    for first in range(0, passages, CHUNK):
        yield first + min(CHUNK, passages - first), passage_lines(lexicon, first, min(CHUNK, passages - first), seed)


def write_wiki18(path: Path, passages: int, vocabulary: int, seed: int,
                 say: Callable[[str], None]) -> dict[str, Any]:
    """Write the file (a gzipped tar of one JSONL member, as the Hub's): the lines are generated twice, once
    to count the member's bytes for the tar header, once to write them. Kept, with what it is, in
    ``<path>.json``: a later call with the same settings reuses it.

    Returns:
        What the file is: passages, vocabulary, seed, its bytes (gzipped and the JSONL's), seconds to write.
    """
    if vocabulary < TITLE_WORDS or passages / PASSAGES_PER_ARTICLE / TITLE_WORDS > vocabulary:
        raise ValueError(f"a vocabulary of {vocabulary:,} words is too small for the titles of {passages:,} passages")
    settings = {"passages": passages, "vocabulary": vocabulary, "seed": seed}
    about = path.with_name(path.name + ".json")
    if path.is_file() and about.is_file():
        saved: dict[str, Any] = json.loads(about.read_text(encoding="utf-8"))
        if all(saved.get(key) == value for key, value in settings.items()) and saved["bytes"] == path.stat().st_size:
            say(f"reusing {path} ({saved['bytes'] / 2**20:,.0f} MiB)")
            return saved
    start = time.perf_counter()
    member_bytes = 0
    for done, lines in _chunks(passages, vocabulary, seed):
        member_bytes += len(lines)
        if done % (CHUNK * 20) == 0 or done == passages:
            say(f"  sized {done:,} of {passages:,} passages ({time.perf_counter() - start:,.0f} s)")
    header = tarfile.TarInfo(MEMBER)
    header.size, header.mtime, header.mode = member_bytes, int(time.time()), 0o644
    partial = path.with_name(path.name + ".partial")
    with gzip.open(partial, "wb", compresslevel=1) as out:
        out.write(header.tobuf(format=tarfile.GNU_FORMAT))
        for done, lines in _chunks(passages, vocabulary, seed):
            out.write(lines)
            if done % (CHUNK * 20) == 0 or done == passages:
                say(f"  wrote {done:,} of {passages:,} passages ({time.perf_counter() - start:,.0f} s)")
        out.write(b"\0" * (-member_bytes % tarfile.BLOCKSIZE) + b"\0" * (2 * tarfile.BLOCKSIZE))
    partial.replace(path)
    saved = {**settings, "bytes": path.stat().st_size, "jsonl_bytes": member_bytes,
             "seconds": time.perf_counter() - start}
    about.write_text(json.dumps(saved) + "\n", encoding="utf-8")
    return saved


def stored_count(db: Path, name: str) -> tuple[int, bool] | None:
    """(passages stored, complete) of corpus ``name`` as the store says now, read-only; None before it exists."""
    try:
        connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    except sqlite3.OperationalError:  # the file is not there yet
        return None
    try:
        row = connection.execute("SELECT passages, complete FROM corpora WHERE name = ?", (name,)).fetchone()
    except sqlite3.OperationalError:  # nor the table
        return None
    finally:
        connection.close()
    return None if row is None else (int(row[0]), bool(row[1]))


def high_water_kib(pid: int) -> int:
    """The process's peak resident memory so far (``VmHWM``), 0 once it has exited. Not ``wait4``'s
    ``ru_maxrss``: a child forked from this process starts with this process's peak."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def corpus_add(home: Path, name: str, wiki: Path, total: int, say: Callable[[str], None],
               kill_at: float | None = None) -> dict[str, Any]:
    """Run ``hopkit corpus add NAME FILE`` into the store in ``home``, showing its progress; with ``kill_at``,
    ``SIGKILL`` it once that share of ``total`` passages is stored.

    Returns:
        seconds, peak_mib (the child's peak resident memory), exit code, when the storing ended (its
        passages all stored, fingerprinting after), and the count stored when killed.
    """
    home.mkdir(parents=True, exist_ok=True)
    db = home / "hopkit.db"
    environment = {key: value for key, value in variables_matching(["*"]).items() if key != "HOPKIT_DB_URL"}
    environment["HOPKIT_HOME"] = str(home)
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "hopkit.cli", "corpus", "add", name, str(wiki), "--quiet"],
                             env=environment, stdout=subprocess.PIPE, text=True)
    result: dict[str, Any] = {}
    shown, killing, peak_kib = start, kill_at is not None, 0
    first: int | None = None  # the count stored when first seen: a resume's starting point
    while True:
        finished, status, _ = os.wait4(child.pid, os.WNOHANG)
        if finished:
            break
        peak_kib = max(peak_kib, high_water_kib(child.pid))
        time.sleep(0.05)
        state = stored_count(db, name)
        now = time.perf_counter()
        if state is None:
            continue
        stored, _ = state
        if stored >= total and "stored_seconds" not in result:
            result["stored_seconds"] = now - start
            say(f"  {total:,} passages stored in {now - start:,.0f} s; fingerprinting ...")
        if kill_at is not None and stored >= kill_at * total:
            os.kill(child.pid, signal.SIGKILL)
            result["killed_at"] = stored
            say(f"  SIGKILL at {stored:,} passages stored ({now - start:,.1f} s)")
            kill_at = None
        if first is None:
            first = stored
        if now - shown >= 10:
            doing = "fingerprinting" if stored >= total else f"{(stored - first) / (now - start):,.0f} passages/s"
            say(f"  {stored:,} of {total:,} passages stored; {doing} ({now - start:,.0f} s)")
            shown = now
    child.returncode = os.waitstatus_to_exitcode(status)
    output = child.stdout.read() if child.stdout is not None else ""
    if child.stdout is not None:
        child.stdout.close()
    result.update(seconds=time.perf_counter() - start, peak_mib=peak_kib / 1024, exit=child.returncode,
                  output=output.strip())
    if not killing and child.returncode != 0:
        raise RuntimeError(f"hopkit corpus add exited {child.returncode}: {output}")
    return result


def store_mib(home: Path) -> float:
    """The store's files on disk once its write-ahead log is checkpointed into the database (a read-only
    poll may have been the last connection, which leaves the log)."""
    connection = sqlite3.connect(home / "hopkit.db")
    try:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        connection.close()
    return sum(f.stat().st_size for f in home.glob("hopkit.db*")) / 2**20


def stored_once(db: Path, name: str, total: int) -> dict[str, Any]:
    """Whether every passage of the file is stored exactly once, at its own position: the rows, their distinct
    source ids, and the rows whose source id is not their position (the file's ids are ``"0"`` to
    ``total - 1``; a position is unique, the primary key)."""
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        corpus_id, passages, complete, fingerprint = connection.execute(
            "SELECT id, passages, complete, fingerprint FROM corpora WHERE name = ?", (name,)).fetchone()
        rows, misplaced = connection.execute(
            "SELECT count(*), coalesce(sum(CAST(source_id AS INTEGER) != id), 0) FROM corpus_passages "
            "WHERE corpus_id = ?", (corpus_id,)).fetchone()
        distinct = connection.execute("SELECT count(DISTINCT source_id) FROM corpus_passages WHERE corpus_id = ?",
                                      (corpus_id,)).fetchone()[0]
    finally:
        connection.close()
    return {"passages": passages, "complete": bool(complete), "rows": rows, "distinct_source_ids": distinct,
            "misplaced": misplaced, "fingerprint": fingerprint,
            "once": bool(complete) and passages == rows == distinct == total and misplaced == 0}


def read_rate(home: Path, name: str, say: Callable[[str], None]) -> dict[str, Any]:
    """Passages/s of the corpus read in id order: as an index build reads it (``paragraph_batches``, the
    keyset range reads of :meth:`StoredCorpus.batches`, one transaction), and as
    :meth:`NamedCorpora.passages` reads it (one transaction a batch: what fingerprinting reads)."""
    url = f"sqlite:///{home / 'hopkit.db'}"
    info = Store.connect(url).corpora.get(name)
    source = ParagraphSource(CorpusPassageRow, info.corpus_id, name, info.passages)
    rates: dict[str, Any] = {"batch": READ_BATCH}
    start, read = time.perf_counter(), 0
    with transaction(DBConnection.from_config(url).get_session_factory(), "reading the corpus") as session:
        for batch in paragraph_batches(session, source, READ_BATCH):
            read += len(batch)
    rates["index_build_per_s"] = read / (time.perf_counter() - start)
    say(f"  read {read:,} passages as an index build reads them: {rates['index_build_per_s']:,.0f}/s")
    start, read = time.perf_counter(), 0
    for chunk in Store.connect(url).corpora.passages(name):
        read += len(chunk)
    rates["named_corpora_per_s"] = read / (time.perf_counter() - start)
    say(f"  read {read:,} passages by NamedCorpora.passages: {rates['named_corpora_per_s']:,.0f}/s")
    return rates


E5_BUILD_RATE = 18_000  # passages/s an e5-base-v2 build on one GPU reads (docs/retrieval.md)


def measure(work: Path, passages: int, vocabulary: int, seed: int, kill_at: float, keep: bool,
            say: Callable[[str], None]) -> dict[str, Any]:
    """Every step, the generated file and the stores in ``work`` (the file reused when there). The whole
    ingest's store is deleted once read and fingerprinted, unless ``keep``: two Wikipedia-size stores and
    the file need not be on disk at once."""
    wiki = work / f"wiki-18-{passages}.jsonl.gz"
    say(f"generating {wiki} ...")
    saved: dict[str, Any] = {"file": write_wiki18(wiki, passages, vocabulary, seed, say), "cpus": os.cpu_count(),
                             "kill_at": kill_at}
    whole, stopped = work / "store-whole", work / "store-killed"
    for home in (whole, stopped):  # a store left by an earlier run would be a resume, not an ingest
        for old in home.glob("hopkit.db*"):
            old.unlink()
    say("hopkit corpus add, whole ...")
    saved["ingest"] = {**corpus_add(whole, "wiki18", wiki, passages, say), "store_mib": store_mib(whole)}
    say(f"  {saved['ingest']['seconds']:,.0f} s, peak {saved['ingest']['peak_mib']:,.0f} MiB, "
        f"store {saved['ingest']['store_mib']:,.0f} MiB")
    say("reading the store in id order ...")
    saved["read"] = read_rate(whole, "wiki18", say)
    whole_fingerprint = stored_fingerprint(whole / "hopkit.db", "wiki18")
    if not keep:
        for old in whole.glob("hopkit.db*"):
            old.unlink()
    say(f"hopkit corpus add, killed at {kill_at:.0%} ...")
    saved["killed"] = corpus_add(stopped, "wiki18", wiki, passages, say, kill_at=kill_at)
    saved["killed"]["state_after"] = stored_count(stopped / "hopkit.db", "wiki18")
    say("the same command again (resume) ...")
    saved["resumed"] = {**corpus_add(stopped, "wiki18", wiki, passages, say), "store_mib": store_mib(stopped)}
    say("checking every passage is stored once ...")
    saved["stored_once"] = stored_once(stopped / "hopkit.db", "wiki18", passages)
    saved["same_fingerprint"] = saved["stored_once"]["fingerprint"] == whole_fingerprint
    say(f"  resumed in {saved['resumed']['seconds']:,.0f} s; stored once: {saved['stored_once']['once']}, "
        f"same fingerprint: {saved['same_fingerprint']}")
    return saved


def stored_fingerprint(db: Path, name: str) -> str | None:
    """The fingerprint of the complete corpus ``name`` (None while incomplete)."""
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        row = connection.execute("SELECT fingerprint FROM corpora WHERE name = ?", (name,)).fetchone()
    finally:
        connection.close()
    return None if row is None else row[0]


def remove(work: Path, passages: int) -> None:
    """Delete the generated file and the stores."""
    for path in [*work.glob(f"wiki-18-{passages}.jsonl.gz*"), *work.glob("store-*/hopkit.db*")]:
        path.unlink()
    for home in work.glob("store-*"):
        if home.is_dir() and not any(home.iterdir()):
            home.rmdir()
    if not any(work.iterdir()):
        work.rmdir()


def section(saved: dict[str, Any]) -> str:
    """The ``wiki-ingest`` section of docs/benchmarks.md."""
    wiki, whole, killed, resumed = saved["file"], saved["ingest"], saved["killed"], saved["resumed"]
    passages, once, reads = wiki["passages"], saved["stored_once"], saved["read"]
    per_million = whole["store_mib"] / passages * 1e6
    stored = whole.get("stored_seconds", whole["seconds"])
    same = "the same as" if saved["same_fingerprint"] else "NOT the same as"
    return "\n".join([
        "## Wikipedia-size ingest",
        "",
        f"{passages:,} passages through `hopkit corpus add`, from a generated file in the layout of Search-R1's "
        "`wiki-18.jsonl.gz` (a gzipped tar of one JSONL file, `{\"id\", \"contents\"}`, quoted titles, "
        f"{WORDS_PER_PASSAGE} made-up words a passage): {wiki['bytes'] / 2**20:,.0f} MiB gzipped, "
        f"{wiki['jsonl_bytes'] / 2**20:,.0f} MiB of JSONL, generated in {wiki['seconds']:,.0f} s. "
        f"SQLite store, {saved['cpus']} CPUs.",
        "",
        "`" + saved["command"] + "`",
        "",
        markdown_table(["step", "wall time", "peak memory", "result"], [
            f"| `hopkit corpus add` | {whole['seconds']:,.0f} s ({stored:,.0f} s storing, then fingerprinting; "
            f"{passages / whole['seconds']:,.0f} passages/s) | {whole['peak_mib']:,.0f} MiB | "
            f"{whole['store_mib']:,.0f} MiB store ({per_million:,.0f} MiB a million passages) |",
            f"| read in id order, as an index build reads | {passages / reads['index_build_per_s']:,.0f} s | | "
            f"{reads['index_build_per_s']:,.0f} passages/s (an e5 build on one GPU needs about {E5_BUILD_RATE:,}/s) |",
            f"| read by `NamedCorpora.passages` (as fingerprinting) | "
            f"{passages / reads['named_corpora_per_s']:,.0f} s | | {reads['named_corpora_per_s']:,.0f} passages/s |",
            f"| the same ingest into a new store, `kill -9` at {killed['killed_at']:,} stored | "
            f"{killed['seconds']:,.0f} s | {killed['peak_mib']:,.0f} MiB | incomplete: no run uses it |",
            f"| the same command again (resume) | {resumed['seconds']:,.0f} s | {resumed['peak_mib']:,.0f} MiB | "
            f"{once['rows']:,} rows, {once['distinct_source_ids']:,} distinct source ids, {once['misplaced']} "
            f"misplaced; fingerprint {same} the uninterrupted ingest's |"]),
        "",
        f"Every passage stored once after the kill and the resume: {'yes' if once['once'] else 'NO'}. The reads "
        "follow the ingest, the store's pages likely still in the page cache.",
    ])


def standard_setting(saved: dict[str, Any]) -> str:
    """The ``wiki-ingest`` paragraph of docs/standard-setting.md, pointing at docs/benchmarks.md."""
    whole, passages, once = saved["ingest"], saved["file"]["passages"], saved["stored_once"]["once"]
    resumed = "every passage stored once" if once else "NOT every passage stored once"
    return (f"Storing wiki-18 (`hopkit corpus add wiki18`), measured on {passages:,} generated passages in its "
            f"layout: {whole['seconds'] / 60:,.0f} minutes, {whole['peak_mib']:,.0f} MiB of memory at most, a "
            f"{whole['store_mib'] / 1024:,.1f} GiB store; after a `kill -9` half way the same command resumed in "
            f"{saved['resumed']['seconds'] / 60:,.0f} minutes, {resumed}; the store reads back in id order at "
            f"{saved['read']['index_build_per_s']:,.0f} passages/s: "
            "[benchmarks.md](benchmarks.md#wikipedia-size-ingest).")
