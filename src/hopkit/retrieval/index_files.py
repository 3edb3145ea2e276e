"""The FAISS file an ``index_path:`` names: a local file, a file of the Hugging Face Hub, or parts joined once.

``index_path`` in a retrieval config is one of::

    /data/wiki18_100w_e5.index                    a local file (FlashRAG's, Search-R1's, one's own)
    hf://datasets/OWNER/NAME[@REVISION]/FILE      a file of a dataset repository on the Hub
    [hf://datasets/.../part_aa, .../part_ab]      a file published in parts (``split``), joined in order

A Hub file is downloaded once into hopkit's Hub cache by :func:`hopkit.llm.hub.download_hub_file`
(``huggingface_hub``'s progress bar, a broken download resumed when run again, ``$HF_ENDPOINT`` honoured).
Parts are joined once, with a progress bar, into ``<Hub cache>/joined/...``: written under a temporary
name and renamed when whole, so a joined file is never half there; the parts downloaded from the Hub are
then removed from the cache, so the index is kept once on disk (Search-R1's Flat index is 64.6 GB).
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from tqdm import tqdm

from hopkit import environment
from hopkit.errors import ConfigError, RetrievalError
from hopkit.llm.hub import HUB_SCHEME, HubFile, download_hub_file, parse_hub_uri
from hopkit.retrieval.index_folders import build_lock

logger = logging.getLogger(__name__)

DATASETS = f"{HUB_SCHEME}datasets/"
CHUNK = 16 * 2**20  # bytes copied at a time while joining


def hub_dataset_file(uri: str) -> HubFile:
    """The dataset file ``hf://datasets/OWNER/NAME[@REVISION]/FILE`` names.

    Raises:
        ConfigError: ``uri`` is not of that shape (an index is published in a dataset repository).
    """
    if not uri.startswith(DATASETS):
        raise ConfigError(f"index_path {uri!r}: a Hub index is a file of a dataset repository, named "
                          "hf://datasets/OWNER/NAME/FILE (e.g. hf://datasets/PeterJinGo/wiki-18-e5-index/part_aa)")
    named = parse_hub_uri(HUB_SCHEME + uri[len(DATASETS):])
    return HubFile(repo=named.repo, file=named.file, revision=named.revision, repo_type="dataset")


def _is_hub(value: str) -> bool:
    return value.startswith(HUB_SCHEME)


def _local(value: str) -> Path:
    return Path(value).expanduser()


def joined_path(parts: Sequence[str]) -> Path:
    """Where the file joined from ``parts`` is kept: ``<Hub cache>/joined/datasets--OWNER--NAME/REVISION/a+b``
    for parts of one Hub repository, ``<Hub cache>/joined/local-<hash>/a+b`` otherwise."""
    names = "+".join(PurePosixPath(part).name for part in parts)
    root = environment.hub_cache_dir() / "joined"
    if all(_is_hub(part) for part in parts):
        files = [hub_dataset_file(part) for part in parts]
        if len({(f.repo, f.revision) for f in files}) == 1:
            owner, name = files[0].repo.split("/")
            return root / f"datasets--{owner}--{name}" / (files[0].revision or "main").replace("/", "%2F") / names
    digest = hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:12]
    return root / f"local-{digest}" / names


def index_file(index_path: str | Sequence[str], *, progress: bool | None = None) -> Path:
    """The local FAISS file ``index_path`` names, downloaded (and its parts joined) first if need be.

    Args:
        index_path: a path, an ``hf://datasets/...`` file, or a list of those: parts joined in order.
        progress: show the joining's progress bar (None: when stderr is a terminal).

    Returns:
        The file's path.

    Raises:
        ConfigError: an empty list, or a malformed ``hf://`` name.
        DownloadError: a Hub file cannot be downloaded (the message says why; run again to resume).
        RetrievalError: a local part is missing, or the disk has no room for the joined file.
    """
    parts = [index_path] if isinstance(index_path, str) else list(index_path)
    if not parts:
        raise ConfigError("index_path: an empty list; give a FAISS index file, or its parts in order")
    if len(parts) == 1:
        return download_hub_file(hub_dataset_file(parts[0])) if _is_hub(parts[0]) else _local(parts[0])
    target = joined_path(parts)
    if target.is_file():
        return target
    with build_lock(target):
        if not target.is_file():  # another process may have joined it while this one waited
            files = [download_hub_file(hub_dataset_file(part)) if _is_hub(part) else _local(part) for part in parts]
            _join(files, target, progress)
            for part, file in zip(parts, files):
                if _is_hub(part):
                    _remove_cached(file)
    return target


def _join(files: list[Path], target: Path, progress: bool | None) -> None:
    """Write ``files`` one after the other into ``target``, under a temporary name renamed when whole."""
    missing = [str(file) for file in files if not file.is_file()]
    if missing:
        raise RetrievalError(f"index_path: no such part {', '.join(missing)}")
    total = sum(file.stat().st_size for file in files)
    free = shutil.disk_usage(target.parent).free
    if free < total:
        raise RetrievalError(f"joining {' + '.join(file.name for file in files)} needs {total / 2**30:.1f} GiB in "
                             f"{target.parent}, which has {free / 2**30:.1f} GiB free; free some space, or set "
                             "HOPKIT_CACHE_DIR to a folder on a larger disk")
    temporary = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    logger.info("joining %s into %s", ", ".join(str(file) for file in files), target)
    try:
        with open(temporary, "wb") as out, tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024,
                                                desc=f"joining {' + '.join(f.name for f in files)}",
                                                dynamic_ncols=True,
                                                disable=None if progress is None else not progress) as bar:
            for file in files:
                with open(file, "rb") as part:
                    while chunk := part.read(CHUNK):
                        out.write(chunk)
                        bar.update(len(chunk))
            out.flush()
            os.fsync(out.fileno())
        os.rename(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)


def _remove_cached(file: Path) -> None:
    """Remove a part from the Hub cache once joined: the cache's link and the blob it points at."""
    blob = file.resolve()
    file.unlink(missing_ok=True)
    if blob != file:
        blob.unlink(missing_ok=True)
