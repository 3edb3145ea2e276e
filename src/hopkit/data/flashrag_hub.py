"""The benchmarks' published splits by name: FlashRAG's files on the Hugging Face Hub.

``hopkit ingest flashrag/hotpotqa --split dev`` reads ``hotpotqa/dev.jsonl`` of the Hub
dataset repository ``RUC-NLPIR/FlashRAG_datasets`` (one folder per benchmark, one
``<split>.jsonl`` per split, in :mod:`hopkit.data.formats.flashrag`'s format). The file is
downloaded once into hopkit's Hub cache (:func:`hopkit.environment.hub_cache_dir`) by
``huggingface_hub`` (its progress bar, its resumable download), from ``$HF_ENDPOINT`` when set;
later ingests read the cached copy without a request.
"""

from __future__ import annotations

import re
from pathlib import Path

from hopkit.errors import ConfigError
from hopkit.llm.hub import HubFile, download_hub_file

FLASHRAG_REPO = "RUC-NLPIR/FlashRAG_datasets"
#: ``hopkit ingest flashrag/NAME``: a benchmark of :data:`FLASHRAG_REPO` by its folder's name.
HUB_PREFIX = "flashrag/"

#: The splits each benchmark's folder holds on the Hub (seen on the repository's file pages and in
#: its README's ``configs``): the single-hop ones and the multi-hop ones the field's tables use.
#: Other folders of the repository load too, with the split named.
FLASHRAG_SPLITS: dict[str, tuple[str, ...]] = {
    "nq": ("train", "dev", "test"),
    "triviaqa": ("train", "dev", "test"),
    "popqa": ("test",),
    "hotpotqa": ("train", "dev"),
    "2wikimultihopqa": ("train", "dev"),
    "musique": ("train", "dev"),
    "bamboogle": ("test",),
}

_FOLDER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")


def is_flashrag_name(name: str) -> bool:
    """Whether ``name`` asks for a FlashRAG benchmark from the Hub (``flashrag/NAME``)."""
    return name.startswith(HUB_PREFIX)


def default_split(dataset: str) -> str:
    """The split read when none is named: ``dev`` where the benchmark has one, else ``test``
    (PopQA and Bamboogle publish a test split only)."""
    splits = FLASHRAG_SPLITS.get(dataset, ("dev",))
    return "dev" if "dev" in splits else splits[-1]


def flashrag_hub_file(name: str, split: str | None = None) -> HubFile:
    """The Hub file ``flashrag/NAME`` and ``split`` stand for.

    Args:
        name: ``flashrag/NAME``, NAME a folder of :data:`FLASHRAG_REPO` (``hotpotqa``, ``nq``, ...).
        split: ``dev``, ``test`` or ``train`` (default :func:`default_split`).

    Raises:
        ConfigError: NAME or the split is not a folder or file name, or a known benchmark
            does not publish that split (the message lists those it does).
    """
    dataset = name[len(HUB_PREFIX):]
    known = ", ".join(f"{HUB_PREFIX}{n}" for n in FLASHRAG_SPLITS)
    if not _FOLDER.fullmatch(dataset) or ".." in dataset:
        raise ConfigError(f"{name!r}: expected flashrag/NAME with NAME a benchmark of {FLASHRAG_REPO}, e.g. {known}")
    split = default_split(dataset) if split is None else split
    if not _FOLDER.fullmatch(split) or ".." in split:
        raise ConfigError(f"--split {split!r}: expected a split name such as dev, test or train")
    splits = FLASHRAG_SPLITS.get(dataset)
    if splits is not None and split not in splits:
        raise ConfigError(f"--split {split}: {FLASHRAG_REPO} publishes {dataset}'s {', '.join(splits)} split(s) "
                          f"only; name one of them")
    return HubFile(repo=FLASHRAG_REPO, file=f"{dataset}/{split}.jsonl", repo_type="dataset")


def download_flashrag(name: str, split: str | None = None, *, cache_dir: Path | None = None,
                      endpoint: str | None = None) -> Path:
    """The local path of a FlashRAG benchmark's split, downloaded first unless it is in the cache.

    Args:
        name: ``flashrag/NAME``.
        split: the split (default :func:`default_split`).
        cache_dir: the Hub cache (default :func:`hopkit.environment.hub_cache_dir`).
        endpoint: the Hub's URL (default ``$HF_ENDPOINT``, else https://huggingface.co).

    Raises:
        ConfigError: as :func:`flashrag_hub_file`.
        DownloadError: the file is not on the Hub, or the download failed (run again to resume).
    """
    return download_hub_file(flashrag_hub_file(name, split), cache_dir=cache_dir, endpoint=endpoint)
