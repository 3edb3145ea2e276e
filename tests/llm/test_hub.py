"""hf:// GGUF files: parsed, downloaded by huggingface_hub's real code from a loopback fake Hub, cached.

Every request goes to 127.0.0.1: the fake Hub (hopkit.llm.testing_hub) or a port nothing
listens on. The served "model" is a few bytes, never a real GGUF; the load test fakes
llama_cpp.Llama, so no model is loaded.
"""

from __future__ import annotations

import socket
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Iterator

import huggingface_hub.file_download as hf_download
import huggingface_hub.utils._http as hf_http
import llama_cpp
import pytest

from hopkit import environment
from hopkit.errors import ConfigError, DownloadError, LLMError
from hopkit.llm.hub import HubFile, download_hub_file, hub_llm_spec, parse_hub_uri
from hopkit.llm.llama_cpp import LlamaCppLLM
from hopkit.llm.testing_hub import FAKE_COMMIT, FakeHub, loopback_only, serve_fake_hub

pytestmark = pytest.mark.unit


@pytest.fixture(autouse=True)
def connections() -> Iterator[list[str]]:
    """The hosts every test connected to: 127.0.0.1 only (huggingface_hub's telemetry is off)."""
    with loopback_only() as hosts:
        yield hosts
    assert set(hosts) <= {"127.0.0.1"}, hosts

REPO = "acme/tiny-GGUF"
FILE = "tiny-q4.gguf"
CONTENT = b"GGUF? no: a few bytes standing in for a model"


@pytest.fixture(autouse=True)
def model_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty $HOPKIT_MODEL_DIR, so that no model this machine keeps is found instead of the Hub's."""
    folder = tmp_path_factory.mktemp("models")
    monkeypatch.setenv(environment.HOPKIT_MODEL_DIR, str(folder))
    return folder


@pytest.fixture()
def hub() -> Iterator[FakeHub]:
    with serve_fake_hub({f"{REPO}/{FILE}": CONTENT, f"{REPO}/sub/other.gguf": b"other"}) as server:
        yield server


@pytest.fixture()
def no_retry_waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """huggingface_hub waits 1+2+4+8+8 s between its retries of an unreachable Hub, and 1 s between
    those of a broken download: record them instead."""
    waits: list[float] = []
    monkeypatch.setattr(hf_http, "time", SimpleNamespace(sleep=waits.append))
    monkeypatch.setattr(hf_download, "time", SimpleNamespace(sleep=waits.append))
    return waits


def closed_port_url() -> str:
    """The URL of a port on 127.0.0.1 that nothing listens on (bound, then closed)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.mark.parametrize(("uri", "expected"), [
    (f"hf://{REPO}/{FILE}", HubFile(REPO, FILE)),
    (f"hf://{REPO}@v1.0/{FILE}", HubFile(REPO, FILE, "v1.0")),
    (f"hf://{REPO}@{FAKE_COMMIT}/sub/other.gguf", HubFile(REPO, "sub/other.gguf", FAKE_COMMIT)),
    (f"hf://{REPO}@refs%2Fpr%2F3/{FILE}", HubFile(REPO, FILE, "refs/pr/3")),
])
def test_an_hf_name_gives_repository_file_and_revision(uri: str, expected: HubFile) -> None:
    assert parse_hub_uri(uri) == expected
    assert expected.uri == uri


@pytest.mark.parametrize("uri", [
    "hf://", f"hf://{REPO}", f"hf://{REPO}/", "hf://acme//x.gguf", f"hf://{REPO}@/{FILE}",
    f"hf://ac@me/tiny/{FILE}", f"hf://{REPO}/sub//x.gguf", f"https://huggingface.co/{REPO}/{FILE}",
])
def test_a_malformed_hf_name_shows_the_shape_and_an_example(uri: str) -> None:
    with pytest.raises(ConfigError, match=r"is not a Hugging Face Hub file: expected hf://OWNER/NAME/FILE .*"
                                          r"for example hf://Qwen/"):
        parse_hub_uri(uri)


def test_an_hf_name_as_llm_is_the_llama_cpp_backend_loading_that_file() -> None:
    uri = f"hf://{REPO}/{FILE}"
    assert hub_llm_spec(uri) == {"_target_": "hopkit.llm.llama_cpp.LlamaCppLLM.load", "model_path": uri}


def test_the_file_lands_in_the_cache_by_a_head_and_a_get(hub: FakeHub, tmp_path: Path,
                                                         connections: list[str]) -> None:
    path = download_hub_file(HubFile(REPO, FILE), cache_dir=tmp_path, endpoint=hub.url)
    assert connections and set(connections) == {"127.0.0.1"}  # the guard sees huggingface_hub's connections
    assert path.read_bytes() == CONTENT
    assert path.is_relative_to(tmp_path / "models--acme--tiny-GGUF" / "snapshots" / FAKE_COMMIT)
    assert [(r.method, r.path) for r in hub.requests] == [
        ("HEAD", f"/{REPO}/resolve/main/{FILE}"), ("GET", f"/{REPO}/resolve/main/{FILE}")]


def test_a_cached_file_is_reused_without_any_request(hub: FakeHub, tmp_path: Path) -> None:
    first = download_hub_file(HubFile(REPO, FILE), cache_dir=tmp_path, endpoint=hub.url)
    asked = len(hub.requests)
    again = download_hub_file(HubFile(REPO, FILE), cache_dir=tmp_path, endpoint=hub.url)
    assert again == first
    assert len(hub.requests) == asked == 2
    # ... and with the Hub unreachable, still from the cache
    assert download_hub_file(HubFile(REPO, FILE), cache_dir=tmp_path, endpoint=closed_port_url()) == first


def test_a_pinned_revision_and_a_file_in_a_folder(hub: FakeHub, tmp_path: Path) -> None:
    path = download_hub_file(HubFile(REPO, "sub/other.gguf", FAKE_COMMIT), cache_dir=tmp_path, endpoint=hub.url)
    assert path.read_bytes() == b"other"
    assert hub.requests[0].path == f"/{REPO}/resolve/{FAKE_COMMIT}/sub/other.gguf"


def test_a_missing_file_names_repository_file_and_where_to_look(hub: FakeHub, tmp_path: Path) -> None:
    with pytest.raises(DownloadError) as caught:
        download_hub_file(HubFile(REPO, "Tiny-Q4.gguf"), cache_dir=tmp_path, endpoint=hub.url)
    assert str(caught.value) == (
        f"cannot download hf://{REPO}/Tiny-Q4.gguf: the repository {REPO} has no file 'Tiny-Q4.gguf' at "
        f"revision 'main'; copy the exact file name (letter case too) from {hub.url}/{REPO}/tree/main")
    assert [r.method for r in hub.requests] == ["HEAD"]


def test_a_missing_repository_says_to_check_the_spelling_or_log_in(hub: FakeHub, tmp_path: Path) -> None:
    with pytest.raises(DownloadError, match=rf"cannot download hf://acme/tiny-gguf/{FILE}: {hub.url} has no model "
                                            r"repository 'acme/tiny-gguf', or it is private: check the spelling "
                                            r"OWNER/NAME .* log in with `hf auth login`"):
        download_hub_file(HubFile("acme/tiny-gguf", FILE), cache_dir=tmp_path, endpoint=hub.url)


def test_a_missing_revision_says_what_to_name(hub: FakeHub, tmp_path: Path) -> None:
    with pytest.raises(DownloadError, match=rf"cannot download hf://{REPO}@v9/{FILE}: the repository {REPO} has "
                                            r"no revision 'v9'; name a branch, tag or commit it has"):
        download_hub_file(HubFile(REPO, FILE, "v9"), cache_dir=tmp_path, endpoint=hub.url)


def test_an_unreachable_hub_says_so_and_how_to_go_on(tmp_path: Path, no_retry_waits: list[float]) -> None:
    endpoint = closed_port_url()
    with pytest.raises(DownloadError) as caught:
        download_hub_file(HubFile(REPO, FILE), cache_dir=tmp_path, endpoint=endpoint)
    message = str(caught.value)
    assert message.startswith(f"cannot download hf://{REPO}/{FILE}: could not reach the Hub at {endpoint} (")
    assert f"the file is not in the cache {tmp_path}" in message
    assert "check the network connection (and HF_ENDPOINT if you use a mirror)" in message
    assert "\n" not in message


def test_a_download_that_breaks_off_says_to_run_again(tmp_path: Path, no_retry_waits: list[float]) -> None:
    with serve_fake_hub({f"{REPO}/{FILE}": CONTENT}, cut_bodies=True) as hub, \
            pytest.raises(DownloadError) as caught:
        download_hub_file(HubFile(REPO, FILE), cache_dir=tmp_path, endpoint=hub.url)
    assert str(caught.value).startswith(f"cannot download hf://{REPO}/{FILE}: the download from {hub.url} broke "
                                        "off (peer closed connection without sending complete message body")
    assert ("nothing was kept: check the network connection and run the same command again; or, if you have the "
            f"file, put {FILE} in") in str(caught.value)
    assert not list(tmp_path.glob("*/blobs/*")) and not list(tmp_path.glob("*/snapshots/*/*"))
    with serve_fake_hub({f"{REPO}/{FILE}": CONTENT}) as hub:  # the network is back: the next run downloads it
        assert download_hub_file(HubFile(REPO, FILE), cache_dir=tmp_path, endpoint=hub.url).read_bytes() == CONTENT


def test_an_invalid_repository_id_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"hf://acme/bad\.\.name/x\.gguf: not a valid Hub repository"):
        download_hub_file(HubFile("acme/bad..name", "x.gguf"), cache_dir=tmp_path, endpoint=closed_port_url())


def test_the_cache_folder_and_the_hub_come_from_the_environment(hub: FakeHub, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(environment.HOPKIT_CACHE_DIR, str(tmp_path))
    monkeypatch.setenv(environment.HF_ENDPOINT, hub.url + "/")
    path = download_hub_file(HubFile(REPO, FILE))
    assert path.is_relative_to(tmp_path / "hub") and path.read_bytes() == CONTENT
    assert environment.hub_cache_dir() == tmp_path / "hub"
    assert hub.requests[0].path == f"/{REPO}/resolve/main/{FILE}"


def test_load_reads_the_downloaded_file_through_the_llama_cpp_path(hub: FakeHub, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[dict[str, Any]] = []

    def fake_llama(**options: Any) -> None:
        opened.append(options)
        raise ValueError("fake llama.cpp: not loading anything")

    monkeypatch.setattr(llama_cpp, "Llama", fake_llama)
    monkeypatch.setenv(environment.HOPKIT_CACHE_DIR, str(tmp_path))
    monkeypatch.setenv(environment.HF_ENDPOINT, hub.url)
    cached = download_hub_file(HubFile(REPO, FILE))
    with pytest.raises(LLMError, match=f"llama.cpp could not load {cached}: fake llama.cpp"):
        LlamaCppLLM.load(f"hf://{REPO}/{FILE}", n_ctx=64)
    assert [options["model_path"] for options in opened] == [str(cached)]
    assert opened[0]["n_ctx"] == 64
    assert len(hub.requests) == 2  # the download's HEAD and GET; load found the file in the cache


def test_a_copy_in_the_model_folder_is_read_without_any_request(tmp_path: Path, model_dir: Path,
                                                                 hub: FakeHub) -> None:
    """Issue 29 item 1: where a shipped config's model comes from, and how a copy one has is used."""
    (model_dir / FILE).write_bytes(b"my own copy")
    path = download_hub_file(HubFile(REPO, FILE), cache_dir=tmp_path, endpoint=hub.url)
    assert path == model_dir / FILE and hub.requests == []
    other = download_hub_file(HubFile(REPO, "sub/other.gguf"), cache_dir=tmp_path, endpoint=hub.url)
    assert other.read_bytes() == b"other" and hub.requests  # not in the folder: downloaded


def test_an_unreachable_hub_names_the_model_folder(tmp_path: Path, model_dir: Path,
                                                   no_retry_waits: list[float]) -> None:
    with pytest.raises(DownloadError) as caught:
        download_hub_file(HubFile(REPO, FILE), cache_dir=tmp_path, endpoint=closed_port_url())
    assert str(caught.value).endswith(f"; or, if you have the file, put {FILE} in {model_dir} (or in a folder "
                                      "you name with $HOPKIT_MODEL_DIR) and hopkit reads it from there")


def test_the_shipped_qwen_configs_name_the_hub_file_a_local_copy_stands_in_for() -> None:
    from hopkit.config import named_spec

    for name in ("qwen2.5-coder-1.5b", "qwen2.5-coder-1.5b-4k"):
        assert named_spec("llm", name)["model_path"] == (
            "hf://Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
