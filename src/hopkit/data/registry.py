"""Load a benchmark by name: from a local file, a downloaded official file, or a sample.

>>> examples = load_dataset("musique", "musique_ans_v1.0_dev.jsonl", limit=100, seed=0)
"""

from __future__ import annotations

import inspect
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hopkit import environment
from hopkit.data.download import download_dataset
from hopkit.data.flashrag_hub import HUB_PREFIX, download_flashrag, is_flashrag_name
from hopkit.data.formats import (
    load_2wikimultihopqa,
    load_flashrag,
    load_hotpotqa,
    load_iirc,
    load_ircot,
    load_jsonl,
    load_musique,
    load_strategyqa,
)
from hopkit.data.formats._common import not_a_regular_file
from hopkit.errors import ConfigError, DataError, UnknownNameError
from hopkit.records import Example

Loader = Callable[..., list[Example]]

LOADERS: dict[str, Loader] = {
    "hotpotqa": load_hotpotqa,
    "2wikimultihopqa": load_2wikimultihopqa,
    "musique": load_musique,
    "iirc": load_iirc,
    "strategyqa": load_strategyqa,
    "ircot": load_ircot,
    "jsonl": load_jsonl,
    "flashrag": load_flashrag,
}

DATASET_NAMES: tuple[str, ...] = tuple(LOADERS)

#: Formats whose questions carry no paragraphs of their own (the open-domain setting): their
#: corpus comes from elsewhere, and their questions have no gold paragraph ids.
NO_OWN_PARAGRAPHS: frozenset[str] = frozenset({"flashrag"})

#: Datasets bundled with hopkit, loaded by name without a path: (their format, their file).
#: ``sample`` is the quickstart's small fictional two-hop dataset.
BUNDLED: dict[str, tuple[str, Path]] = {
    "sample": ("jsonl", Path(__file__).resolve().parent.parent / "quickstart" / "sample.jsonl"),
}

SAMPLE_FILES: dict[str, str] = {
    "hotpotqa": "hotpotqa/hotpot_dev_distractor_sample.json",
    "ircot": "hotpotqa/hotpot_dev_ircot_format_sample.jsonl",
    "musique": "musique/musique_ans_dev_sample.jsonl",
    "2wikimultihopqa": "2wikimultihopqa/dev_sample.json",
    "strategyqa": "strategyqa/strategyqa_dev_sample.json",
}


def load_dataset(name: str, path: str | Path | None = None, *, limit: int | None = None, seed: int = 0,
                 first: int | None = None, split: str | None = None, cache_dir: Path | None = None,
                 **options: Any) -> list[Example]:
    """Load a benchmark's questions with their gold answers and paragraphs.

    Args:
        name: one of :data:`DATASET_NAMES` (the file format to read), or of :data:`BUNDLED`
            (a dataset shipped with hopkit, read without ``path``), or ``flashrag/NAME``: a
            benchmark's published split in FlashRAG's format, from the Hugging Face Hub
            (:mod:`hopkit.data.flashrag_hub`).
        path: a local file in that format; if None, the official dev file is
            downloaded (once) into the cache.
        limit: keep a random subset of this many questions (all if None or if
            the file has fewer).
        seed: the seed of that subset: the same seed gives the same questions.
            The subset keeps the file's order.
        first: keep the file's first this many questions, in order (the field's convention:
            FlashRAG's benchmark answers the first 1,000); not with ``limit``.
        split: the split of a ``flashrag/NAME`` dataset (default: dev, else test).
        cache_dir: the download cache (default ``$HOPKIT_CACHE_DIR/datasets`` or
            ``~/.cache/hopkit/datasets``); a ``flashrag/NAME`` file goes to the Hub cache,
            ``$HOPKIT_CACHE_DIR/hub``.
        **options: passed to the format's loader (e.g. ``paragraphs_path`` for
            StrategyQA, ``articles_path`` for IIRC, ``aliases_path`` for 2Wiki).

    Returns:
        The questions, in file order.

    Raises:
        UnknownNameError: ``name`` is not a known dataset.
        ConfigError: bad ``limit`` or ``first``, both given, ``split`` for a dataset other than
            ``flashrag/NAME``, unknown option, or nothing to download.
        DataError: the file is missing, malformed or holds no questions.
        DownloadError: the download failed.
    """
    for option, value in (("limit", limit), ("first", first)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise ConfigError(f"{option} must be a positive integer or None, got {value!r}")
    if limit is not None and first is not None:
        raise ConfigError("give first (the file's first N questions) or limit (a random sample of N), not both")
    if is_flashrag_name(name):
        if path is not None:
            raise ConfigError(f"{name!r} is downloaded from the Hugging Face Hub and read without a path; a FlashRAG "
                              f"file of your own is dataset 'flashrag' (hopkit ingest flashrag {path})")
        name, path = "flashrag", download_flashrag(name, split)
    elif split is not None:
        raise ConfigError(f"split {split!r} is for a benchmark from the Hub ({HUB_PREFIX}NAME); a file given by "
                          "path is read whole")
    if name in BUNDLED:
        if path is not None:
            raise ConfigError(f"dataset {name!r} is bundled with hopkit and read without a path; a file of your "
                              f"own in its format is dataset {BUNDLED[name][0]!r} (hopkit ingest {BUNDLED[name][0]} "
                              f"{path})")
        name, path = BUNDLED[name]
    loader = _loader(name)
    known = [p for p in inspect.signature(loader).parameters if p != "path"]
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise ConfigError(f"unknown option(s) {', '.join(unknown)} for dataset {name!r}; "
                          f"known: {', '.join(known) or '(none)'}")
    if path is None and name in NO_OWN_PARAGRAPHS:
        raise ConfigError(f"dataset {name!r} is a format: give a file in it, or name a benchmark's published split "
                          f"on the Hub, e.g. {HUB_PREFIX}hotpotqa")
    if path is None:
        downloaded = download_dataset(name, cache_dir=cache_dir, skip_options=frozenset(options))
        path = downloaded.path
        options = {**downloaded.options, **options}
    path = Path(path)
    kind = not_a_regular_file(path)
    if kind == "missing":
        raise DataError(f"{name} file not found; check the path (or omit it to download the official file)",
                        path=str(path))
    if kind is not None:
        raise DataError(f"not a regular file but {kind}; give the {name} file itself (or omit the path to download "
                        "the official file)", path=str(path))
    examples = loader(path, **options)
    if not examples:
        raise DataError(f"no questions in this {name} file (it is empty, or an empty list); check that it is the "
                        "complete file and in the right format", path=str(path))
    if first is not None:
        return examples[:first]
    return subsample(examples, limit, seed)


def subsample(examples: Sequence[Example], limit: int | None, seed: int) -> list[Example]:
    """A deterministic random subset of ``limit`` examples, in their original order.

    Args:
        examples: all examples.
        limit: how many to keep (all if None or at least ``len(examples)``).
        seed: the random seed.
    """
    if limit is None or limit >= len(examples):
        return list(examples)
    chosen = sorted(random.Random(seed).sample(range(len(examples)), limit))
    return [examples[i] for i in chosen]


def sample_path(name: str, data_dir: str | Path | None = None) -> Path:
    """The sample file of a dataset inside ``$HOPKIT_DATA_DIR`` (or ``data_dir``).

    Args:
        name: a dataset name; ``iirc`` and ``jsonl`` have no sample.
        data_dir: the data folder (default: the ``HOPKIT_DATA_DIR`` variable).

    Raises:
        UnknownNameError: ``name`` is not a known dataset.
        ConfigError: no data folder given or set, or the dataset has no sample.
    """
    _loader(name)
    if name not in SAMPLE_FILES:
        raise ConfigError(f"dataset {name!r} has no sample file; samples exist for {', '.join(SAMPLE_FILES)}")
    folder = data_dir if data_dir is not None else environment.data_dir()
    if not folder:
        raise ConfigError(f"{environment.HOPKIT_DATA_DIR} is not set; point it at the folder holding the benchmark samples")
    return Path(folder) / SAMPLE_FILES[name]


def _loader(name: str) -> Loader:
    if name not in LOADERS:
        raise UnknownNameError("dataset", name, DATASET_NAMES)
    return LOADERS[name]
