"""What the two calibration scripts share: the questions (scores are kept in hopkit's ScoreFile).

The calibration questions are never the benchmark's: qa_bench's MIGRES and SearChain runs
use the first 30 questions of each sample, the calibrations start at the 51st
(``--start 50``). Retrieval is over the same pooled sample corpus the benchmark searches.
"""

from __future__ import annotations

from dataclasses import dataclass

from hopkit.campaign.environment import RESULTS
from hopkit.data.corpus import pool_corpus
from hopkit.data.registry import load_dataset, sample_path
from hopkit.records import Query
from hopkit.retrieval.bm25 import BM25_DEFAULTS, BM25Retriever

SCORES_DIR = RESULTS / "calibration"
#: The benchmark's questions are the first 30 of each sample; calibration starts past the 50th.
FIRST_CALIBRATION_QUESTION = 50


@dataclass(frozen=True)
class Sample:
    """One dataset's sample: its pooled corpus's queries and a BM25 index over the corpus."""

    dataset: str
    queries: list[Query]
    retriever: BM25Retriever

    @classmethod
    def load(cls, dataset: str, *, k1: float = BM25_DEFAULTS["k1"], b: float = BM25_DEFAULTS["b"]) -> Sample:
        """The sample of ``dataset`` in ``$HOPKIT_DATA_DIR``, pooled as qa_bench pools it."""
        corpus = pool_corpus(dataset, load_dataset(dataset, sample_path(dataset)))
        return cls(dataset, list(corpus.queries), BM25Retriever.build(corpus.paragraphs, k1=k1, b=b))

    def calibration_queries(self, start: int, limit: int) -> list[Query]:
        """Questions ``start`` .. ``start + limit - 1`` of the sample, in file order.

        Raises:
            SystemExit: ``start`` would reach the benchmark's questions.
        """
        if start < FIRST_CALIBRATION_QUESTION:
            raise SystemExit(f"--start must be at least {FIRST_CALIBRATION_QUESTION}: the benchmark uses the first "
                             "30 questions of each sample, and calibration must not see them")
        return self.queries[start:start + limit]


def safe_name(text: str) -> str:
    """``text`` usable in a file name."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)
