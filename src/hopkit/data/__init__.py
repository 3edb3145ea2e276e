"""Benchmark data: loaders for each official format, corpus pooling, subsampling, downloads."""

from hopkit.data.corpus import pool_corpus
from hopkit.data.download import DATASET_SOURCES, download_dataset
from hopkit.data.registry import DATASET_NAMES, load_dataset, sample_path, subsample

__all__ = [
    "DATASET_NAMES",
    "DATASET_SOURCES",
    "download_dataset",
    "load_dataset",
    "pool_corpus",
    "sample_path",
    "subsample",
]
