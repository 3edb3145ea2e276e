"""Fetch the official dev files of the benchmarks into a local cache.

Each file is downloaded to ``<name>.part`` and renamed when complete, so an
interrupted download never leaves a file that looks whole; a later call resumes
the ``.part`` file with an HTTP range request when the server allows it.
Archives (zip, tar.gz) are unpacked into a temporary folder that is renamed
when done.
"""

from __future__ import annotations

import logging
import os
import shutil
import tarfile
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import httpx

from hopkit import environment
from hopkit.errors import ConfigError, DownloadError

logger = logging.getLogger(__name__)

CHUNK_BYTES = 1 << 20
UNPACKED_SUFFIX = ".d"


@dataclass(frozen=True)
class RemoteFile:
    """One file to fetch.

    Args:
        url: where to get it.
        filename: its name in the dataset's cache folder.
        unpack: it is a zip or tar(.gz) archive to unpack next to it.
        option: if set, the loader option this file serves (e.g. ``articles_path``):
            the file is skipped when the caller gives that option.
    """

    url: str
    filename: str
    unpack: bool = False
    option: str | None = None


@dataclass(frozen=True)
class DatasetSource:
    """Where a dataset's official dev file lives and which file to load.

    Args:
        homepage: the dataset's official page (for messages and docs).
        files: what to download.
        target: the name of the file to load, found anywhere under the cache folder.
        extras: loader option -> name of a file to pass for it, if found.
    """

    homepage: str
    files: tuple[RemoteFile, ...]
    target: str
    extras: Mapping[str, str] = field(default_factory=dict)


DATASET_SOURCES: dict[str, DatasetSource] = {
    "hotpotqa": DatasetSource(
        homepage="https://hotpotqa.github.io/",
        files=(RemoteFile("http://curtis.ml.cmu.edu/datasets/hotpot/hotpot_dev_distractor_v1.json",
                          "hotpot_dev_distractor_v1.json"),),
        target="hotpot_dev_distractor_v1.json",
    ),
    "2wikimultihopqa": DatasetSource(
        homepage="https://github.com/Alab-NII/2wikimultihop",
        files=(RemoteFile("https://www.dropbox.com/s/ms2m13252h6xubs/data_ids_april7.zip?dl=1",
                          "data_ids_april7.zip", unpack=True),),
        target="dev.json",
        extras={"aliases_path": "id_aliases.json"},
    ),
    "musique": DatasetSource(
        homepage="https://github.com/StonyBrookNLP/musique",
        files=(RemoteFile("https://drive.usercontent.google.com/download?id=1tGdADlNjWFaHLeZZGShh2IRcpO6Lv24h"
                          "&export=download&confirm=t", "musique_v1.0.zip", unpack=True),),
        target="musique_ans_v1.0_dev.jsonl",
    ),
    "iirc": DatasetSource(
        homepage="https://allenai.org/data/iirc",
        files=(
            RemoteFile("https://iirc-dataset.s3.us-west-2.amazonaws.com/iirc_train_dev.tgz",
                       "iirc_train_dev.tgz", unpack=True),
            RemoteFile("https://iirc-dataset.s3.us-west-2.amazonaws.com/context_articles.tar.gz",
                       "context_articles.tar.gz", unpack=True, option="articles_path"),
        ),
        target="dev.json",
        extras={"articles_path": "context_articles.json"},
    ),
    "strategyqa": DatasetSource(
        homepage="https://allenai.org/data/strategyqa",
        files=(RemoteFile("https://storage.googleapis.com/ai2i/strategyqa/data/strategyqa_dataset.zip",
                          "strategyqa_dataset.zip", unpack=True),),
        # The official dev questions carry no answers; the labelled file is train.
        target="strategyqa_train.json",
        extras={"paragraphs_path": "strategyqa_train_paragraphs.json"},
    ),
}


@dataclass(frozen=True)
class DownloadedDataset:
    """A dataset file ready to load, with the loader options its extra files fill in."""

    path: Path
    options: Mapping[str, Path]


def default_cache_dir() -> Path:
    """``$HOPKIT_CACHE_DIR/datasets`` if the variable is set, else ``~/.cache/hopkit/datasets``."""
    return environment.cache_dir() / "datasets"


def download_dataset(name: str, *, cache_dir: Path | None = None,
                     sources: Mapping[str, DatasetSource] | None = None,
                     skip_options: frozenset[str] = frozenset(),
                     client: httpx.Client | None = None) -> DownloadedDataset:
    """Fetch (if not cached yet) and unpack a dataset's official dev file.

    Args:
        name: a key of ``sources``.
        cache_dir: where datasets are cached (default :func:`default_cache_dir`).
        sources: the URL table (default :data:`DATASET_SOURCES`).
        skip_options: loader options the caller sets itself; files serving them
            are not downloaded.
        client: the HTTP client (default: a new one that follows redirects).

    Returns:
        The path of the file to load and the extra loader options found.

    Raises:
        ConfigError: the dataset has no download source.
        DownloadError: a download failed, an archive is broken, or the expected
            file is not in it.
    """
    table = DATASET_SOURCES if sources is None else sources
    if name not in table:
        raise ConfigError(f"dataset {name!r} has no public file to download; pass the path of a local file")
    source = table[name]
    folder = (cache_dir or default_cache_dir()) / name
    folder.mkdir(parents=True, exist_ok=True)
    own_client = client is None
    http = client or httpx.Client(follow_redirects=True, timeout=httpx.Timeout(30.0, read=300.0))
    try:
        for remote in source.files:
            if remote.option is not None and remote.option in skip_options:
                continue
            local = fetch(remote.url, folder / remote.filename, http)
            if remote.unpack:
                unpack(local, remote.url)
    finally:
        if own_client:
            http.close()
    target = find_file(folder, source.target)
    if target is None:
        raise DownloadError(f"downloaded {name} from {', '.join(f.url for f in source.files)} but found no "
                            f"{source.target!r} in {folder}; the archive layout may have changed "
                            f"(see {source.homepage})")
    options = {}
    for option, filename in source.extras.items():
        found = find_file(folder, filename)
        if found is not None and option not in skip_options:
            options[option] = found
    return DownloadedDataset(path=target, options=options)


def fetch(url: str, dest: Path, client: httpx.Client) -> Path:
    """Download ``url`` to ``dest`` unless it is there already; resume a ``.part`` file.

    Raises:
        DownloadError: the server answered with an error or the connection failed.
    """
    if dest.is_file():
        return dest
    part = dest.with_name(dest.name + ".part")
    offset = part.stat().st_size if part.is_file() else 0
    headers = {"Range": f"bytes={offset}-"} if offset else {}
    logger.info("downloading %s to %s%s", url, dest, f" (resuming at {offset} bytes)" if offset else "")
    try:
        with client.stream("GET", url, headers=headers) as response:
            if response.status_code == 416 and offset:
                part.unlink()  # our partial file does not match the server's: start over
                return fetch(url, dest, client)
            if response.status_code >= 400:
                raise DownloadError(f"could not download {url}: HTTP {response.status_code}; "
                                    "check the URL or download the file by hand and pass its path")
            mode = "ab" if response.status_code == 206 else "wb"
            with part.open(mode) as handle:
                for chunk in response.iter_bytes(CHUNK_BYTES):
                    handle.write(chunk)
    except httpx.HTTPError as exc:
        raise DownloadError(f"could not download {url}: {exc}; run again to resume, or download the "
                            "file by hand and pass its path") from exc
    os.replace(part, dest)
    return dest


def unpack(archive: Path, url: str) -> Path:
    """Unpack a zip or tar archive into ``<archive>.d`` (once).

    Raises:
        DownloadError: the file is not a readable archive or holds unsafe paths.
    """
    out = archive.with_name(archive.name + UNPACKED_SUFFIX)
    if out.is_dir():
        return out
    tmp = archive.with_name(archive.name + UNPACKED_SUFFIX + ".part")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir()
    try:
        if zipfile.is_zipfile(archive):
            _unzip(archive, tmp, url)
        elif tarfile.is_tarfile(archive):
            with tarfile.open(archive) as tar:
                tar.extractall(tmp, filter="data")
        else:
            raise DownloadError(f"the file downloaded from {url} ({archive}) is not a zip or tar archive "
                                "(the server may have sent an HTML page); delete it and download it by hand")
    except (tarfile.TarError, zipfile.BadZipFile, OSError) as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise DownloadError(f"could not unpack {archive} downloaded from {url}: {exc}; delete it and retry") from exc
    except DownloadError:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    os.replace(tmp, out)
    return out


def _unzip(archive: Path, out: Path, url: str) -> None:
    with zipfile.ZipFile(archive) as zf:
        for member in zf.namelist():
            parts = PurePosixPath(member).parts
            if member.startswith("/") or ".." in parts:
                raise DownloadError(f"refusing to unpack {archive} from {url}: unsafe member path {member!r}")
        zf.extractall(out)


def find_file(folder: Path, filename: str) -> Path | None:
    """The shallowest file called ``filename`` under ``folder`` (macOS metadata ignored)."""
    found = [p for p in folder.rglob(filename) if p.is_file() and "__MACOSX" not in p.parts]
    return min(found, key=lambda p: (len(p.parts), str(p))) if found else None
