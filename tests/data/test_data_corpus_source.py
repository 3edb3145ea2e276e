"""Corpus files of the published formats read as streams of passages with their source ids."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from hopkit.data.corpus_source import CorpusSource, detect_format, flashrag_title_text
from hopkit.errors import DataError

from .corpus_fixtures import DPR_EXPECTED, HOPKIT_EXPECTED, dpr_file, expected_wiki18, hopkit_file, wiki18_file

pytestmark = pytest.mark.unit


def read(source: CorpusSource, skip: int = 0) -> list[tuple[str, str, str]]:
    return [(p.source_id, p.title, p.text) for p in source.passages(skip=skip)]


@pytest.mark.parametrize("name", ["wiki-18.jsonl.gz", "wiki-18.jsonl"])
def test_wiki18_jsonl_quoted_and_bare_titles_ids_kept(tmp_path: Path, name: str) -> None:
    source = CorpusSource.open(wiki18_file(tmp_path / name, 2000))
    assert source.format == "flashrag"
    assert read(source) == expected_wiki18(2000)
    assert read(source, skip=1995) == expected_wiki18(2000)[1995:]
    stream = source.passages()
    next(stream)
    assert 0 < source.bytes_read() <= source.size
    stream.close()


def test_flashrag_title_split_as_flashrag_splits_it() -> None:
    assert flashrag_title_text('"Aaron"\nAaron is a prophet.\nSecond line.') == (
        "Aaron", "Aaron is a prophet.\nSecond line.")
    assert flashrag_title_text("Aaron\nText") == ("Aaron", "Text")
    assert flashrag_title_text('"The ""Quoted"" one"\nx') == ('The ""Quoted"" one', "x")
    assert flashrag_title_text("Only a title") == ("Only a title", "")


@pytest.mark.parametrize("name", ["psgs_w100.tsv", "psgs_w100.tsv.bz2"])
def test_dpr_tsv(tmp_path: Path, name: str) -> None:
    source = CorpusSource.open(dpr_file(tmp_path / name))
    assert source.format == "dpr"
    assert read(source) == DPR_EXPECTED
    assert read(source, skip=2) == DPR_EXPECTED[2:]


def test_hopkit_jsonl_id_kept_else_position(tmp_path: Path) -> None:
    source = CorpusSource.open(hopkit_file(tmp_path / "corpus.jsonl"))
    assert source.format == "hopkit"
    assert read(source) == HOPKIT_EXPECTED


def test_format_given_overrides_detection_and_bad_records_name_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "odd.jsonl"
    path.write_text(json.dumps({"id": 1, "contents": "T\nx"}) + "\n" + json.dumps({"id": 2}) + "\n")
    with pytest.raises(DataError, match=r"odd.jsonl:2.*'contents'"):
        read(CorpusSource.open(path, "flashrag"))
    with pytest.raises(DataError, match=r"odd.jsonl:1.*'title'"):
        read(CorpusSource.open(path, "hopkit"))
    with pytest.raises(DataError, match="unknown corpus format 'csv'"):
        CorpusSource.open(path, "csv")


def test_undetectable_empty_missing_and_truncated_files(tmp_path: Path) -> None:
    odd = tmp_path / "odd.txt"
    odd.write_text("hello\n")
    with pytest.raises(DataError, match=r"odd.txt:1: neither JSON nor DPR's TSV header.*--format"):
        detect_format(odd)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    with pytest.raises(DataError, match="empty"):
        CorpusSource.open(empty)
    with pytest.raises(DataError, match="no such corpus file"):
        CorpusSource.open(tmp_path / "absent.jsonl")
    truncated = tmp_path / "cut.jsonl.gz"
    whole = gzip.compress("".join(json.dumps({"id": i, "contents": f"T{i}\nx"}) + "\n"
                                  for i in range(5000)).encode())
    truncated.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(DataError, match="cut.jsonl.gz: cannot read the file to its end"):
        read(CorpusSource.open(truncated))
    short = tmp_path / "short.tsv"
    short.write_text("id\ttext\ttitle\n1\tonly text\n")
    with pytest.raises(DataError, match=r"short.tsv:2: expected 3 tab-separated fields"):
        read(CorpusSource.open(short))


def test_search_r1s_wiki18_gz_is_a_tar_archive_read_as_its_one_file(tmp_path: Path) -> None:
    """PeterJinGo/wiki-18-corpus's wiki-18.jsonl.gz is, despite its name, a gzipped tar archive holding one
    file (FlashRAG's wiki_dump.jsonl, under data00/.../wiki_dpr_100w/): read as that file, resumable."""
    import io
    import tarfile

    body = wiki18_file(tmp_path / "wiki_dump.jsonl", 500).read_bytes()
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w") as tar:
        member = tarfile.TarInfo("data00/jiajie_jin/flashrag_indexes/wiki_dpr_100w/wiki_dump.jsonl")
        member.size = len(body)
        tar.addfile(member, io.BytesIO(body))
    path = tmp_path / "wiki-18.jsonl.gz"
    path.write_bytes(gzip.compress(archive.getvalue()))
    source = CorpusSource.open(path)
    assert source.format == "flashrag"
    assert read(source) == expected_wiki18(500)
    assert read(source, skip=480) == expected_wiki18(500)[480:]
