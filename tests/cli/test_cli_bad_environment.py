"""Every environment variable whose value hopkit parses (a URL, a folder, a list of names) is checked before it
is used: a bad value gets one line naming the variable and what it expects, exit 2, no traceback and no
silent default (issue 70, "In general").

Each variable is given a bad value for a command that reads it (the variables a shipped config takes a value
from, ``${OPENAI_BASE_URL}``, too); the store is a real SQLite file, the Hub and the OpenAI-compatible server a
port nothing listens on (nothing leaves the machine), the model the scripted one of the shipped-config tests.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

import hopkit

from .running import hopkit as run_hopkit

pytestmark = pytest.mark.unit

PACKAGE = Path(hopkit.__file__).parent
SAMPLE = PACKAGE / "quickstart" / "sample.jsonl"
HUB_FILE = "hf://acme/tiny-GGUF/tiny-Q8.gguf"


@pytest.fixture(autouse=True)
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """No name but the loopback's is resolved: a bad value that a command would go on with never reaches out."""
    resolve = socket.getaddrinfo

    def only_loopback(host: object, *args: object, **kwargs: object) -> object:
        if host not in (None, "127.0.0.1", "localhost", b"127.0.0.1", b"localhost"):
            raise socket.gaierror(socket.EAI_NONAME, f"this test reaches 127.0.0.1 only, not {host!r}")
        return resolve(host, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(socket, "getaddrinfo", only_loopback)


@pytest.fixture()
def toy(db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> str:
    """A store holding two questions as ``toy``; the caches in the test's folder; the Hub unreachable."""
    monkeypatch.setenv("HOPKIT_CACHE_DIR", str(tmp_path / "cache"))
    for name in ("HOPKIT_DATA_DIR", "HOPKIT_MODEL_DIR", "HOPKIT_ALLOWED_TARGETS", "HF_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    for name in ("OPENAI_API_KEY", "HOPKIT_OPENAI_MODEL"):
        monkeypatch.delenv(name, raising=False)
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{sock.getsockname()[1]}")
        monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{sock.getsockname()[1]}/v1")
    (tmp_path / "answering.yaml").write_text("_target_: tests.cli.answering_model.AnsweringLLM\n", encoding="utf-8")
    (tmp_path / "a-file").write_text("not a folder\n", encoding="utf-8")
    code, _, err = run_hopkit(capsys, "--db", db, "ingest", "jsonl", str(SAMPLE), "--name", "toy", "--limit", "2")
    assert code == 0, err
    return db


def run_ircot(db: str, tmp_path: Path) -> tuple[str, ...]:
    return ("--db", db, "run", "ircot-fewshot", "--dataset", "toy", "--llm", str(tmp_path / "answering.yaml"), "--quiet")


def run_hub(db: str, tmp_path: Path) -> tuple[str, ...]:
    return ("--db", db, "run", "nor", "--dataset", "toy", "--llm", HUB_FILE, "--quiet")


def run_foreign_target(db: str, tmp_path: Path) -> tuple[str, ...]:
    config = tmp_path / "foreign.yaml"
    config.write_text("_target_: collections.OrderedDict\n", encoding="utf-8")
    return ("--db", db, "run", "nor", "--dataset", "toy", "--llm", str(config), "--quiet")


def run_openai(db: str, tmp_path: Path) -> tuple[str, ...]:
    return ("--db", db, "run", "nor", "--dataset", "toy", "--llm", "openai-compatible", "--quiet")


def list_runs(db: str, tmp_path: Path) -> tuple[str, ...]:
    return ("runs",)  # the store from HOPKIT_DB_URL


def ingest_download(db: str, tmp_path: Path) -> tuple[str, ...]:
    return ("--db", db, "ingest", "hotpotqa", "--limit", "1")


CASES = [
    ("HOPKIT_DB_URL", "notaurl", list_runs,
     "HOPKIT_DB_URL: not a database URL; expected e.g. sqlite:///path/to/hopkit.db"),
    ("HOPKIT_DATA_DIR", "{tmp}/no-such-folder", run_ircot,
     "HOPKIT_DATA_DIR: there is no folder {tmp}/no-such-folder; expected the folder holding the benchmark samples"),
    ("HOPKIT_DATA_DIR", "{tmp}/a-file", run_ircot,
     "HOPKIT_DATA_DIR: {tmp}/a-file is not a folder; expected the folder holding the benchmark samples"),
    ("HOPKIT_CACHE_DIR", "{tmp}/a-file", ingest_download,
     "HOPKIT_CACHE_DIR: {tmp}/a-file is not a folder; expected a folder for the download caches"),
    ("HOPKIT_CACHE_DIR", "{tmp}/a-file/cache", ingest_download,
     "HOPKIT_CACHE_DIR: {tmp}/a-file/cache is not a folder ({tmp}/a-file is a file); expected a folder"),
    ("HOPKIT_MODEL_DIR", "{tmp}/a-file", run_hub,
     "HOPKIT_MODEL_DIR: {tmp}/a-file is not a folder; expected the folder of the model files you already have"),
    ("HF_ENDPOINT", "huggingface.co", run_hub,
     "HF_ENDPOINT: 'huggingface.co' is not an http:// or https:// URL; expected the URL of the Hugging Face Hub"),
    ("HF_ENDPOINT", "http://127.0.0.1:99999", run_hub,
     "HF_ENDPOINT: 'http://127.0.0.1:99999' is not a URL (Port out of range 0-65535); expected the URL"),
    ("HF_ENDPOINT", "https:///models", run_hub, "HF_ENDPOINT: 'https:///models' names no host; expected the URL"),
    ("OPENAI_API_KEY", "sk-abc\n", run_openai,
     "OPENAI_API_KEY: holds a control character (a newline?) at position 7 of 7; expected the key alone"),
    ("OPENAI_API_KEY", "Bearer sk-abc", run_openai, "OPENAI_API_KEY: holds a space at position 7 of 13"),
    ("OPENAI_BASE_URL", "127.0.0.1:8000/v1", run_openai,
     "base_url must start with http:// or https://, got '127.0.0.1:8000/v1' (field 'base_url' is $OPENAI_BASE_URL)"),
    ("HOPKIT_OPENAI_MODEL", "", run_openai, "needs a model name (field 'model' is $HOPKIT_OPENAI_MODEL)"),
    ("HOPKIT_ALLOWED_TARGETS", "mypackage.MyLLM, 1bad", run_foreign_target,
     "HOPKIT_ALLOWED_TARGETS: '1bad' is not a dotted Python name; expected the dotted names (module.Class)"),
]


@pytest.mark.parametrize("name, value, command, said", CASES, ids=[f"{case[0]}={case[1]}" for case in CASES])
def test_a_bad_value_is_one_line_naming_the_variable_and_exit_2(
        toy: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        name: str, value: str, command, said: str) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv(name, value.format(tmp=tmp_path))
    code, out, err = run_hopkit(capsys, *command(toy, tmp_path))
    assert code == 2, err
    assert "Traceback" not in err and out == ""
    assert err.count("\n") == 1 and err.startswith("hopkit: error: ") and said.format(tmp=tmp_path) in err, err
