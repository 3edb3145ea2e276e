"""Downloading official files, against a local HTTP server on 127.0.0.1."""

from __future__ import annotations

import io
import tarfile
import threading
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from hopkit.data import download as dl
from hopkit.data import load_dataset
from hopkit.data.download import DatasetSource, RemoteFile, default_cache_dir, download_dataset, fetch
from hopkit.errors import DownloadError

pytestmark = pytest.mark.unit

FIXTURES = Path(__file__).parent / "fixtures"


class FileServer:
    """Serves in-memory files; honours ``Range: bytes=N-`` unless told not to."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.requests: list[tuple[str, str | None]] = []
        self.honour_range = True
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.requests.append((self.path, self.headers.get("Range")))
                body = server.files.get(self.path)
                if body is None:
                    self.send_error(404)
                    return
                status, start = 200, 0
                range_header = self.headers.get("Range")
                if range_header and server.honour_range:
                    start = int(range_header.removeprefix("bytes=").rstrip("-"))
                    status = 206
                self.send_response(status)
                self.send_header("Content-Length", str(len(body) - start))
                self.end_headers()
                self.wfile.write(body[start:])

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"


@pytest.fixture()
def server() -> Iterator[FileServer]:
    srv = FileServer()
    srv.thread.start()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def _targz(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_plain_file_is_downloaded_once_then_read_from_cache(
        server: FileServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server.files["/hotpot.json"] = (FIXTURES / "hotpot_small.json").read_bytes()
    monkeypatch.setitem(dl.DATASET_SOURCES, "hotpotqa", DatasetSource(
        homepage="local", files=(RemoteFile(server.url("/hotpot.json"), "hotpot.json"),), target="hotpot.json"))
    examples = load_dataset("hotpotqa", cache_dir=tmp_path, limit=2, seed=1)
    assert len(examples) == 2
    assert load_dataset("hotpotqa", cache_dir=tmp_path)[0].id == "hp1"
    assert len(server.requests) == 1
    assert (tmp_path / "hotpotqa" / "hotpot.json").is_file()
    assert not list((tmp_path / "hotpotqa").glob("*.part"))


def test_zip_is_unpacked_and_extra_files_become_options(
        server: FileServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server.files["/data_ids.zip"] = _zip({
        "data_ids/dev.json": (FIXTURES / "two_wiki" / "dev.json").read_bytes(),
        "data_ids/aliases/id_aliases.json": (FIXTURES / "two_wiki" / "id_aliases.json").read_bytes(),
        "__MACOSX/data_ids/._dev.json": b"junk",
    })
    monkeypatch.setitem(dl.DATASET_SOURCES, "2wikimultihopqa", DatasetSource(
        homepage="local", files=(RemoteFile(server.url("/data_ids.zip"), "data_ids.zip", unpack=True),),
        target="dev.json", extras={"aliases_path": "id_aliases.json"}))
    examples = load_dataset("2wikimultihopqa", cache_dir=tmp_path)
    assert examples[0].answers == ("Lisbon", "Lisboa", "Lisboner")


def _iirc_source(server: FileServer) -> DatasetSource:
    server.files["/iirc_train_dev.tgz"] = _targz(
        {"iirc_train_dev/dev.json": (FIXTURES / "iirc" / "dev.json").read_bytes()})
    server.files["/context_articles.tar.gz"] = _targz(
        {"context_articles.json": (FIXTURES / "iirc" / "context_articles.json").read_bytes()})
    return DatasetSource(homepage="local", files=(
        RemoteFile(server.url("/iirc_train_dev.tgz"), "iirc_train_dev.tgz", unpack=True),
        RemoteFile(server.url("/context_articles.tar.gz"), "context_articles.tar.gz", unpack=True,
                   option="articles_path")),
        target="dev.json", extras={"articles_path": "context_articles.json"})


def test_tar_gz_archives_with_articles(server: FileServer, tmp_path: Path) -> None:
    found = download_dataset("iirc", cache_dir=tmp_path, sources={"iirc": _iirc_source(server)})
    assert found.path.name == "dev.json"
    assert found.options["articles_path"].name == "context_articles.json"


def test_iirc_articles_skipped_when_the_caller_sets_the_option(
        server: FileServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(dl.DATASET_SOURCES, "iirc", _iirc_source(server))
    examples = load_dataset("iirc", cache_dir=tmp_path, articles_path=None)
    assert [len(e.context) for e in examples] == [1, 1, 1, 1]
    assert [path for path, _ in server.requests] == ["/iirc_train_dev.tgz"]


def test_partial_download_is_resumed_with_a_range_request(server: FileServer, tmp_path: Path) -> None:
    body = bytes(range(256)) * 100
    server.files["/big.bin"] = body
    (tmp_path / "big.bin.part").write_bytes(body[:1000])
    with httpx.Client() as client:
        fetch(server.url("/big.bin"), tmp_path / "big.bin", client)
    assert (tmp_path / "big.bin").read_bytes() == body
    assert server.requests == [("/big.bin", "bytes=1000-")]
    assert not (tmp_path / "big.bin.part").exists()


def test_server_ignoring_range_restarts_the_file(server: FileServer, tmp_path: Path) -> None:
    body = b"0123456789" * 50
    server.files["/f.bin"] = body
    server.honour_range = False
    (tmp_path / "f.bin.part").write_bytes(b"stale bytes")
    with httpx.Client() as client:
        fetch(server.url("/f.bin"), tmp_path / "f.bin", client)
    assert (tmp_path / "f.bin").read_bytes() == body


def test_http_error_names_the_url_and_leaves_no_file(server: FileServer, tmp_path: Path) -> None:
    url = server.url("/missing.json")
    sources = {"hotpotqa": DatasetSource(homepage="local", files=(RemoteFile(url, "h.json"),), target="h.json")}
    with pytest.raises(DownloadError, match="404") as info:
        download_dataset("hotpotqa", cache_dir=tmp_path, sources=sources)
    assert url in str(info.value)
    assert not (tmp_path / "hotpotqa" / "h.json").exists()


def test_unreachable_server_is_a_download_error_naming_the_url(tmp_path: Path) -> None:
    probe = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    port = probe.server_address[1]
    probe.server_close()  # nothing listens on this port any more
    url = f"http://127.0.0.1:{port}/x.json"
    sources = {"hotpotqa": DatasetSource(homepage="local", files=(RemoteFile(url, "x.json"),), target="x.json")}
    with pytest.raises(DownloadError) as info:
        download_dataset("hotpotqa", cache_dir=tmp_path, sources=sources)
    assert url in str(info.value)


def test_html_instead_of_archive_is_a_download_error(server: FileServer, tmp_path: Path) -> None:
    server.files["/data.zip"] = b"<html>quota exceeded</html>"
    sources = {"musique": DatasetSource(homepage="local", target="dev.jsonl",
                                        files=(RemoteFile(server.url("/data.zip"), "data.zip", unpack=True),))}
    with pytest.raises(DownloadError, match="not a zip or tar archive"):
        download_dataset("musique", cache_dir=tmp_path, sources=sources)
    assert not (tmp_path / "musique" / "data.zip.d").exists()


def test_archive_without_the_target_file_says_so(server: FileServer, tmp_path: Path) -> None:
    server.files["/data.zip"] = _zip({"other.txt": b"x"})
    sources = {"musique": DatasetSource(homepage="local", target="dev.jsonl",
                                        files=(RemoteFile(server.url("/data.zip"), "data.zip", unpack=True),))}
    with pytest.raises(DownloadError, match=r"found no 'dev\.jsonl'"):
        download_dataset("musique", cache_dir=tmp_path, sources=sources)


def test_zip_with_unsafe_paths_is_refused(server: FileServer, tmp_path: Path) -> None:
    server.files["/evil.zip"] = _zip({"../escape.txt": b"x"})
    sources = {"musique": DatasetSource(homepage="local", target="dev.jsonl",
                                        files=(RemoteFile(server.url("/evil.zip"), "evil.zip", unpack=True),))}
    with pytest.raises(DownloadError, match="unsafe"):
        download_dataset("musique", cache_dir=tmp_path / "cache", sources=sources)
    assert not (tmp_path / "cache" / "escape.txt").exists()


def test_default_cache_dir_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOPKIT_CACHE_DIR", str(tmp_path))
    assert default_cache_dir() == tmp_path / "datasets"
    monkeypatch.delenv("HOPKIT_CACHE_DIR")
    assert default_cache_dir() == Path.home() / ".cache" / "hopkit" / "datasets"


def test_official_sources_cover_the_benchmarks() -> None:
    assert set(dl.DATASET_SOURCES) == {"hotpotqa", "2wikimultihopqa", "musique", "iirc", "strategyqa"}
    assert all(f.url.startswith(("http://", "https://")) for s in dl.DATASET_SOURCES.values() for f in s.files)
