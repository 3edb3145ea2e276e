"""Corpora by name from the Hugging Face Hub: ``hopkit corpus add wiki18`` with no file.

``wiki18`` is Search-R1's copy of DPR's 2018 Wikipedia dump (``wiki18_100w``, 21,015,324 passages of
100 words) in FlashRAG's JSONL: ``wiki-18.jsonl.gz`` of the Hub dataset repository
``PeterJinGo/wiki-18-corpus``. It is downloaded once into hopkit's Hub cache
(:func:`hopkit.environment.hub_cache_dir`) by ``huggingface_hub`` (its progress bar; a download cut off
resumes where it stopped when run again), from ``$HF_ENDPOINT`` when set.
"""

from __future__ import annotations

from pathlib import Path

from hopkit.errors import ConfigError
from hopkit.llm.hub import HubFile, download_hub_file

#: The corpora ``hopkit corpus add NAME`` downloads when no file is given, and their format.
KNOWN_CORPORA: dict[str, tuple[HubFile, str]] = {
    "wiki18": (HubFile(repo="PeterJinGo/wiki-18-corpus", file="wiki-18.jsonl.gz", repo_type="dataset"), "flashrag"),
}


def corpus_hub_file(name: str) -> tuple[HubFile, str]:
    """The Hub file of the known corpus ``name`` and its format.

    Raises:
        ConfigError: ``name`` is not a corpus hopkit knows by name (the message lists them).
    """
    if name not in KNOWN_CORPORA:
        raise ConfigError(f"corpus add {name}: no file given, and {name!r} is not a corpus hopkit downloads by name "
                          f"({', '.join(KNOWN_CORPORA)}); give the corpus file: hopkit corpus add {name} PATH")
    return KNOWN_CORPORA[name]


def download_corpus(name: str, *, cache_dir: Path | None = None, endpoint: str | None = None) -> Path:
    """The local path of the known corpus ``name``, downloaded first unless it is in the cache.

    Raises:
        ConfigError: as :func:`corpus_hub_file`.
        DownloadError: the file is not on the Hub, or the download failed (run again to resume).
    """
    hub_file, _ = corpus_hub_file(name)
    return download_hub_file(hub_file, cache_dir=cache_dir, endpoint=endpoint)
