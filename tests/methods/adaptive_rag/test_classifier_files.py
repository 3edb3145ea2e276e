"""Adaptive-RAG classifier files that are empty, mis-shaped or zip bombs are refused by name, before their data
is read; a killed save leaves no empty file (issue 70, failure 7)."""

from __future__ import annotations

import io
import signal
import struct
import subprocess
import sys
import tracemalloc
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pytest

from hopkit.cli import main
from hopkit.errors import ConfigError
from hopkit.methods.adaptive_rag.labels import LABELS
from hopkit.methods.adaptive_rag.trained import KIND, load_classifier, train
from hopkit.records import Corpus, Paragraph, Query
from hopkit.store.connection import DBConnection
from hopkit.store.records import QueryResult, RunSpec
from hopkit.store.store import Store

pytestmark = pytest.mark.unit

QUESTIONS = ["Who wrote Emma?", "Who wrote Dracula?", "Where was the founder of the firm that made the Walkman born?"]


def saved(path: Path, **changed: np.ndarray) -> Path:
    """A classifier file with ``changed`` members in place of a trained classifier's."""
    members = {"kind": np.array(KIND), "version": np.array(1), "labels": np.array(LABELS),
               "weights": np.zeros((3, 16)), "bias": np.zeros(3), **changed}
    with open(path, "wb") as out:
        np.savez(out, **members)
    return path


def refusal(path: Path) -> str:
    with pytest.raises(ConfigError) as refused:
        load_classifier(path, LABELS)
    message = str(refused.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    return message


def test_an_empty_file_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "router.npz"
    path.write_bytes(b"")
    assert "an empty file, not an Adaptive-RAG classifier" in refusal(path)


def test_a_0d_labels_member_is_refused_by_name(tmp_path: Path) -> None:
    message = refusal(saved(tmp_path / "router.npz", labels=np.array("A")))
    assert "member 'labels.npy' declares shape ()" in message


def test_a_version_of_two_numbers_is_refused_by_name(tmp_path: Path) -> None:
    message = refusal(saved(tmp_path / "router.npz", version=np.array([1, 1])))
    assert "member 'version.npy' declares shape (2,)" in message


def test_a_member_missing_cut_short_or_of_the_wrong_type_is_refused_by_name(tmp_path: Path) -> None:
    assert "member 'weights.npy' declares shape (3, 16) of <U1" in refusal(
        saved(tmp_path / "text.npz", weights=np.full((3, 16), "x")))
    assert "member 'bias.npy' is missing" in refusal(
        _archive(tmp_path / "missing.npz", {**SMALL, "weights.npy": _npy(np.zeros((3, 4)))}))
    short = _npy(np.zeros((3, 4)))[:-8]
    assert "member 'weights.npy' is cut short" in refusal(
        _archive(tmp_path / "short.npz", {**SMALL, "weights.npy": short, "bias.npy": _npy(np.zeros(3))}))


def _npy(array: np.ndarray) -> bytes:
    data = io.BytesIO()
    np.lib.format.write_array(data, array, allow_pickle=False)
    return data.getvalue()


SMALL = {"kind.npy": _npy(np.array(KIND)), "version.npy": _npy(np.array(1)), "labels.npy": _npy(np.array(LABELS))}


def _archive(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def _bomb(path: Path, rows: int, columns: int) -> Path:
    """A classifier file whose ``weights.npy`` is ``rows x columns`` float64 zeros, deflated: a zip written by
    hand, the zeros' deflate stream one piece (1 MiB of zeros, fully flushed) repeated, so that this test never
    holds the zeros."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (rows, columns)})
    head, chunk = header.getvalue(), 1 << 20
    pieces = rows * columns * 8 // chunk
    assert pieces * chunk == rows * columns * 8
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    start = compressor.compress(head) + compressor.flush(zlib.Z_FULL_FLUSH)
    piece = compressor.compress(bytes(chunk)) + compressor.flush(zlib.Z_FULL_FLUSH)
    end = compressor.flush(zlib.Z_FINISH)
    crc, zeros = zlib.crc32(head), bytes(chunk)
    for _ in range(pieces):
        crc = zlib.crc32(zeros, crc)
    # (name, method: 0 stored / 8 deflated, CRC-32, size, the stored parts: each written `times` times)
    members = [(name, 0, zlib.crc32(data), len(data), [(data, 1)]) for name, data in SMALL.items()]
    members.append(("weights.npy", 8, crc, len(head) + pieces * chunk, [(start, 1), (piece, pieces), (end, 1)]))
    bias = _npy(np.zeros(rows))
    members.append(("bias.npy", 0, zlib.crc32(bias), len(bias), [(bias, 1)]))
    with open(path, "wb") as out:
        directory = b""
        for name, method, member_crc, size, parts in members:
            offset = out.tell()
            stored = sum(len(part) * times for part, times in parts)
            fields = struct.pack("<HHHHHIIIHH", 20, 0, method, 0, 0x21, member_crc, stored, size, len(name), 0)
            out.write(b"PK\x03\x04" + fields + name.encode())
            for part, times in parts:
                for _ in range(times):
                    out.write(part)
            directory += (b"PK\x01\x02" + struct.pack("<H", 20) + fields + struct.pack("<HHHII", 0, 0, 0, 0, offset)
                          + name.encode())
        at = out.tell()
        out.write(directory + b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, len(members), len(members),
                                                          len(directory), at, 0))
    return path


def test_a_zip_bomb_is_refused_from_its_header_without_allocating(tmp_path: Path) -> None:
    path = _bomb(tmp_path / "bomb.npz", 3, 1 << 26)  # 1.5 GiB of float64 zeros in a 1.6 MB file
    assert path.stat().st_size < 2 << 20
    tracemalloc.start()
    try:
        message = refusal(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "member 'weights.npy' declares shape (3, 67108864) of float64, not (3, at most 1,048,576)" in message
    assert peak < 4 << 20  # the declared 1.5 GiB was never allocated


def test_a_router_file_with_more_features_than_the_cap_is_refused(tmp_path: Path) -> None:
    path = _bomb(tmp_path / "wide.npz", 3, 1 << 21)  # 48 MiB: twice the features a classifier may hold
    assert "member 'weights.npy' declares shape (3, 2097152)" in refusal(path)
    fitting = _bomb(tmp_path / "fits.npz", 3, 1 << 17)  # within the cap: read, all zeros
    assert load_classifier(fitting, LABELS).weights.shape == (3, 1 << 17)


def test_an_archive_written_member_by_member_loads(tmp_path: Path) -> None:
    """The test's own archives are read as numpy's (so the refusals above are of their content)."""
    classifier = train(QUESTIONS, ["B", "B", "C"], LABELS)
    members = {**SMALL, "weights.npy": _npy(classifier.weights), "bias.npy": _npy(classifier.bias)}
    loaded = load_classifier(_archive(tmp_path / "hand.npz", members), LABELS)
    np.testing.assert_array_equal(loaded.weights, classifier.weights)


def test_a_killed_save_leaves_the_file_that_was_there(tmp_path: Path) -> None:
    path = tmp_path / "router.npz"
    train(QUESTIONS, ["B", "B", "C"], LABELS).save(path)
    before = path.read_bytes()
    # a save killed (SIGKILL) as `hopkit train-router` or a campaign could be: after its first member is written
    script = f"""
import os, signal, zipfile
from pathlib import Path
from hopkit.methods.adaptive_rag.labels import LABELS
from hopkit.methods.adaptive_rag.trained import train
real = zipfile.ZipFile.writestr
def killed(self, *args, **kwargs):
    real(self, *args, **kwargs)
    os.kill(os.getpid(), signal.SIGKILL)
zipfile.ZipFile.writestr = killed
train({QUESTIONS!r}, ["B", "C", "C"], LABELS, buckets=64).save(Path({str(path)!r}))
"""
    child = subprocess.run([sys.executable, "-c", script], timeout=120)
    assert child.returncode == -signal.SIGKILL
    assert path.read_bytes() == before
    assert load_classifier(path, LABELS).buckets == 4096


def test_train_router_writing_where_it_cannot_says_so_in_one_line(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    store = Store(DBConnection(url).get_session_factory())
    queries = tuple(Query(f"q{i}", text, ("right",)) for i, text in enumerate(QUESTIONS))
    store.add_corpus(Corpus("hotpotqa", (Paragraph(0, "Emma", "Emma is a novel by Jane Austen."),), queries))
    for method in ("nor", "oner"):
        run = store.ensure_run(RunSpec(method, method, "hotpotqa", {"method": method}))
        store.record_results(run.run_id, [QueryResult(q.id, "right" if q.id == "q0" else "wrong") for q in queries])
    folder = tmp_path / "router.npz"
    folder.mkdir()
    code = main(["--db", url, "train-router", "--datasets", "hotpotqa", "--out", str(folder), "--held-out", "0"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert err.strip().splitlines() == [f"hopkit: error: option '--out': {folder}: is a folder, not a classifier file"]
