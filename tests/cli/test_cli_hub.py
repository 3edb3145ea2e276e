"""``--llm hf://...`` on the command line: what `hopkit quickstart` and `hopkit run` say when the
Hub file cannot be had (one line, exit status 2, no traceback).

The Hub is the loopback fake (hopkit.llm.testing_hub) or a port nothing listens on, named by
$HF_ENDPOINT; the store is a real SQLite file. No model is loaded: each failure comes first.
"""

from __future__ import annotations

import socket
from pathlib import Path
from types import SimpleNamespace
from typing import Iterator

import huggingface_hub.utils._http as hf_http
import pytest

from hopkit import environment
from hopkit.cli import main
from hopkit.llm.testing_hub import FakeHub, loopback_only, serve_fake_hub

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "src" / "hopkit" / "quickstart" / "sample.jsonl"
NOR = ROOT / "src" / "hopkit" / "configs" / "pipelines" / "nor.yaml"
MISSING = "hf://acme/tiny-GGUF/tiny-Q8.gguf"


@pytest.fixture(autouse=True)
def connections() -> Iterator[list[str]]:
    """The hosts every test connected to: 127.0.0.1 only (huggingface_hub's telemetry is off)."""
    with loopback_only() as hosts:
        yield hosts
    assert set(hosts) <= {"127.0.0.1"}, hosts


@pytest.fixture()
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(environment.HOPKIT_HOME, str(tmp_path / "home"))
    monkeypatch.setenv(environment.HOPKIT_CACHE_DIR, str(tmp_path / "cache"))
    monkeypatch.delenv(environment.HOPKIT_DB_URL, raising=False)
    monkeypatch.chdir(tmp_path)
    return f"sqlite:///{tmp_path / 'hopkit.db'}"


@pytest.fixture()
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    with serve_fake_hub({"acme/tiny-GGUF/tiny-q4.gguf": b"tiny"}) as server:
        monkeypatch.setenv(environment.HF_ENDPOINT, server.url)
        yield server


def hopkit(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_quickstart_with_a_missing_hub_file_says_which_and_where_to_look(
        db: str, hub: FakeHub, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = hopkit(capsys, "--db", db, "quickstart", "--llm", MISSING)
    assert code == 2
    assert err == (f"hopkit: error: cannot download {MISSING}: the repository acme/tiny-GGUF has no file "
                   f"'tiny-Q8.gguf' at revision 'main'; copy the exact file name (letter case too) from "
                   f"{hub.url}/acme/tiny-GGUF/tree/main\n")


def test_run_with_an_unreachable_hub_says_so_without_a_traceback(
        db: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, err = hopkit(capsys, "--db", db, "ingest", "jsonl", str(SAMPLE), "--name", "toy", "--limit", "2")
    assert code == 0, err
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        endpoint = f"http://127.0.0.1:{sock.getsockname()[1]}"
    monkeypatch.setenv(environment.HF_ENDPOINT, endpoint)
    monkeypatch.setattr(hf_http, "time", SimpleNamespace(sleep=lambda seconds: None))  # its retries' waits
    code, out, err = hopkit(capsys, "--db", db, "run", str(NOR), "--llm", MISSING, "--quiet")
    assert code == 2
    assert "Traceback" not in err and out == ""
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"hopkit: error: cannot download {MISSING}: could not reach the Hub at {endpoint} (")
    assert "check the network connection" in last


@pytest.mark.parametrize("uri, part", [
    ("hf://OWNER/NAME/../../x.gguf", "the file '../../x.gguf'"),
    ("hf://O/N@../f.gguf", "the revision '..'"),
    ("hf://O/N@main%2F..%2F..%2Fx/f.gguf", "the revision 'main/../../x'"),
    ("hf://../N/f.gguf", "the owner '..'"),
    ("hf://O/na--me/f.gguf", "the name 'na--me'"),
    ("hf://O/N/dir\\..\\f.gguf", "the file 'dir\\\\..\\\\f.gguf'"),
])
def test_a_hub_name_that_leaves_the_repository_is_refused_before_any_call(
        db: str, hub: FakeHub, capsys: pytest.CaptureFixture[str], uri: str, part: str) -> None:
    """Issue 28 item 5: `--llm hf://OWNER/NAME/../../x.gguf` ended in huggingface_hub's traceback, and a
    revision of `..` was accepted."""
    code, _, err = hopkit(capsys, "--db", db, "ingest", "jsonl", str(SAMPLE), "--name", "toy", "--limit", "1")
    assert code == 0, err
    code, out, err = hopkit(capsys, "--db", db, "run", str(NOR), "--llm", uri, "--quiet")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"hopkit: error: {uri!r} is not a Hugging Face Hub file: {part}")
    assert hub.requests == []
