"""Reading, finding and downloading the IRCoT authors' prompt files."""

from __future__ import annotations

import functools
import os
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

import pytest

from hopkit.errors import DataError, DownloadError, UnknownNameError
from hopkit.prompts.ircot_files import (AUTHORS_DEMONSTRATION_QIDS, IRCOT_COMMIT, RAW_BASE_URL, IRCoTPromptFiles,
                                        load_demonstrations, load_title_demonstrations, parse_prompt_file,
                                        qa_prompt_file_name, title_prompt_file_name)

pytestmark = pytest.mark.unit

FILE_TEXT = (
    '# METADATA: {"qid": "a1"}\n'
    "Wikipedia Title: Nosferatu\nNosferatu is a film by F.W. Murnau.\n\n"
    "Q: Who directed Nosferatu?\nA: Nosferatu was directed by F.W. Murnau. So the answer is: F.W. Murnau.\n\n\n"
    '# METADATA: {"qid": "b2"}\n'
    "Q: Who made Walls and Bridges?\nA: John Lennon\n\n\n\n"
    '# METADATA: {"qid": "c3"}\n'
    "Q: How many episodes?\nA: 20\n"
)
NAME = "gold_with_2_distractors_context_cot_qa_codex.txt"


def test_parse_strips_metadata_and_splits_on_blank_line_triples() -> None:
    prompt = parse_prompt_file(FILE_TEXT, "f.txt")
    assert prompt.qids == ("a1", "b2", "c3")
    assert prompt.demonstrations[0] == ("Wikipedia Title: Nosferatu\nNosferatu is a film by F.W. Murnau.\n\n"
                                        "Q: Who directed Nosferatu?\nA: Nosferatu was directed by F.W. Murnau. "
                                        "So the answer is: F.W. Murnau.")
    assert prompt.demonstrations[1] == "Q: Who made Walls and Bridges?\nA: John Lennon"
    assert all("METADATA" not in d for d in prompt.demonstrations)


def test_parse_accepts_demonstrations_without_metadata_and_crlf() -> None:
    prompt = parse_prompt_file("Q: a?\r\nA: b\r\n\r\n\r\nQ: c?\r\nA: d", "f.txt")
    assert prompt.demonstrations == ("Q: a?\nA: b", "Q: c?\nA: d")
    assert prompt.qids == ("", "")


def test_bad_metadata_names_file_and_line() -> None:
    text = 'Q: a?\nA: b\n\n\n# METADATA: {"qid": oops}\nQ: c?\nA: d'
    with pytest.raises(DataError, match=r"f\.txt:5.*METADATA"):
        parse_prompt_file(text, "f.txt")


def test_select_orders_by_the_given_qids() -> None:
    prompt = parse_prompt_file(FILE_TEXT, "f.txt").select(["c3", "a1"])
    assert prompt.qids == ("c3", "a1")
    assert prompt.demonstrations[0] == "Q: How many episodes?\nA: 20"
    with pytest.raises(DataError, match="zz"):
        prompt.select(["zz"])


def test_authors_selection_lists_twenty_per_dataset() -> None:
    assert {len(q) for q in AUTHORS_DEMONSTRATION_QIDS.values()} == {20}
    with pytest.raises(UnknownNameError):
        parse_prompt_file(FILE_TEXT).authors_selection("squad")


@pytest.mark.parametrize("args, name", [
    (("no_context", "cot", "codex"), "no_context_cot_qa_codex.txt"),
    (("gold_with_2_distractors", "cot", "codex"), NAME),
    (("gold_with_3_distractors", "direct", "flan_t5"), "gold_with_3_distractors_context_direct_qa_flan_t5.txt"),
])
def test_file_names(args: tuple[str, str, str], name: str) -> None:
    assert qa_prompt_file_name(*args) == name


def test_title_file_name() -> None:
    assert title_prompt_file_name("flan_t5") == "no_context_open_llm_retrieval_flan_t5.txt"


@pytest.mark.parametrize("args", [("gold_with_4_distractors", "cot", "codex"), ("no_context", "cott", "codex"),
                                  ("no_context", "cot", "gpt4")])
def test_unknown_choices(args: tuple[str, str, str]) -> None:
    with pytest.raises(UnknownNameError):
        qa_prompt_file_name(*args)


def test_unknown_dataset(tmp_path: Path) -> None:
    with pytest.raises(UnknownNameError, match="squad"):
        IRCoTPromptFiles(tmp_path, tmp_path / "cache").load("squad")


def test_local_dir_first(tmp_path: Path) -> None:
    (tmp_path / "hotpotqa").mkdir()
    (tmp_path / "hotpotqa" / NAME).write_text(FILE_TEXT, encoding="utf-8")
    files = IRCoTPromptFiles(tmp_path, tmp_path / "cache", base_url="http://127.0.0.1:9/unused")
    prompt = files.load("hotpotqa", "gold_with_2_distractors", "cot", "codex")
    assert prompt.qids == ("a1", "b2", "c3")
    assert prompt.source == str(tmp_path / "hotpotqa" / NAME)


def test_from_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()  # $HOPKIT_DATA_DIR must name a folder
    monkeypatch.setenv("HOPKIT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HOPKIT_CACHE_DIR", str(tmp_path / "cache"))
    files = IRCoTPromptFiles.from_env()
    assert files.local_dir == tmp_path / "data" / "ircot" / "prompts"
    assert files.cache_dir == tmp_path / "cache" / "prompts"
    assert files.base_url == RAW_BASE_URL
    assert RAW_BASE_URL.endswith(f"StonyBrookNLP/ircot/{IRCOT_COMMIT}")


def test_from_env_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOPKIT_DATA_DIR", raising=False)
    monkeypatch.delenv("HOPKIT_CACHE_DIR", raising=False)
    files = IRCoTPromptFiles.from_env()
    assert files.local_dir is None
    assert files.cache_dir == Path.home() / ".cache" / "hopkit" / "prompts"


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A file server on 127.0.0.1 over a folder laid out like the repository."""
    root = tmp_path / "served"
    (root / "prompts" / "musique").mkdir(parents=True)
    (root / "prompts" / "musique" / NAME).write_text(FILE_TEXT, encoding="utf-8")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", root
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def test_download_into_the_cache_then_reuse_it(server: tuple[str, Path], tmp_path: Path) -> None:
    url, root = server
    cache = tmp_path / "cache"
    files = IRCoTPromptFiles(None, cache, base_url=url, timeout=5)
    prompt = files.load("musique", "gold_with_2_distractors", "cot", "codex")
    cached = cache / IRCOT_COMMIT / "musique" / NAME
    assert cached.read_text(encoding="utf-8") == FILE_TEXT
    assert prompt.source == str(cached)
    assert prompt.qids == ("a1", "b2", "c3")
    (root / "prompts" / "musique" / NAME).unlink()   # the server no longer has it: the cache answers
    assert files.load("musique", "gold_with_2_distractors", "cot", "codex").qids == ("a1", "b2", "c3")
    assert not [p for p in os.listdir(cached.parent) if p.endswith(".part")]


def test_missing_remote_file_names_the_url(server: tuple[str, Path], tmp_path: Path) -> None:
    url, _ = server
    files = IRCoTPromptFiles(tmp_path / "nothing", tmp_path / "cache", base_url=url, timeout=5)
    with pytest.raises(DownloadError, match=f"{url}/prompts/iirc/no_context_open_llm_retrieval_codex.txt.*404"):
        files.load_titles("codex")
    assert not (tmp_path / "cache" / IRCOT_COMMIT / "iirc" / "no_context_open_llm_retrieval_codex.txt").exists()


def test_unreachable_server_names_the_url(tmp_path: Path) -> None:
    files = IRCoTPromptFiles(None, tmp_path / "cache", base_url="http://127.0.0.1:9", timeout=2)
    with pytest.raises(DownloadError, match=r"http://127\.0\.0\.1:9/prompts/hotpotqa/no_context_direct_qa_codex\.txt"):
        files.load("hotpotqa", "no_context", "direct", "codex")


@pytest.mark.integration
def test_the_real_files_when_available() -> None:
    data_dir = os.environ.get("HOPKIT_DATA_DIR")
    if not data_dir or not (Path(data_dir) / "ircot" / "prompts" / "hotpotqa").is_dir():
        pytest.skip("HOPKIT_DATA_DIR does not hold ircot/prompts")
    files = IRCoTPromptFiles.from_env()
    for dataset, qids in AUTHORS_DEMONSTRATION_QIDS.items():
        prompt = files.load(dataset, "gold_with_1_distractors", "cot", "flan_t5").authors_selection(dataset)
        assert len(prompt.demonstrations) == 20
        assert all(d.split("\n")[-1].startswith("A: ") and "METADATA" not in d for d in prompt.demonstrations)
        assert all("Q: Answer the following question by reasoning step-by-step.\n" in d
                   for d in prompt.demonstrations)
    assert len(files.load_titles("codex").demonstrations) == 20


def test_load_demonstrations_takes_the_authors_twenty_in_their_order(tmp_path: Path) -> None:
    qids = AUTHORS_DEMONSTRATION_QIDS["musique"]
    text = "\n\n\n".join(f'# METADATA: {{"qid": "{q}"}}\nQ: question {q}?\nA: {q}' for q in reversed(qids))
    text += '\n\n\n# METADATA: {"qid": "extra"}\nQ: not used?\nA: no'
    folder = tmp_path / "musique"
    folder.mkdir()
    (folder / "no_context_direct_qa_flan_t5.txt").write_text(text, encoding="utf-8")
    files = IRCoTPromptFiles(tmp_path, tmp_path / "cache", base_url="http://127.0.0.1:9")
    demos = load_demonstrations("musique", "no_context", "direct", "flan_t5", files=files)
    assert demos == [f"Q: question {q}?\nA: {q}" for q in qids]


def test_load_title_demonstrations(tmp_path: Path) -> None:
    qids = AUTHORS_DEMONSTRATION_QIDS["iirc"]
    (tmp_path / "iirc").mkdir()
    (tmp_path / "iirc" / "no_context_open_llm_retrieval_codex.txt").write_text(
        "\n\n\n".join(f'# METADATA: {{"qid": "{q}"}}\nQ: t {q}\nA: ["{q}"]' for q in qids), encoding="utf-8")
    files = IRCoTPromptFiles(tmp_path, tmp_path / "cache", base_url="http://127.0.0.1:9")
    assert load_title_demonstrations("codex", files=files)[0] == f'Q: t {qids[0]}\nA: ["{qids[0]}"]'
