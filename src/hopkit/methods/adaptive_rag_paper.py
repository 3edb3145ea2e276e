"""The Adaptive-RAG paper's results with FLAN-T5-XL (Jeong et al., "Adaptive-RAG: Learning to Adapt
Retrieval-Augmented Large Language Models through Question Complexity", NAACL 2024, arXiv 2403.14403v2,
Table 2 "Results on each of a collection of datasets with FLAN-T5-XL (3B) as the LLM"), declared once for the
method packages whose ``published`` modules cite it.

Read from a text extraction of the v2 PDF; three other stored copies give the same numbers. Its setting, as
section 4.4 states it: BM25 for every model; for the single-hop datasets the Wikipedia corpus of Karpukhin et al.
(2020), DPR's 2018 dump (hopkit's ``wiki18``), for the multi-hop ones the corpora of Trivedi et al. (2023), IRCoT's
(one per dataset); IRCoT's implementation details, its prompts and its test questions (500 per dataset); the
paragraphs per retrieval are not stated. Left out: SQuAD (none of the benchmarks hopkit ingests by name), the
Acc column (a gold answer contained in the prediction, not hopkit's cover-EM), Step and Time, and the rows of
methods hopkit does not implement (Adaptive Retrieval, Self-RAG, the oracle classifier).
"""

from __future__ import annotations

from typing import Mapping

from hopkit.methods.published import Model, PublishedResult, Questions, Setting, Source

TABLE = "adaptive-rag-paper"
SOURCE = Source(table=TABLE, title="Adaptive-RAG (arXiv 2403.14403v2), Table 2", file="Table 2, FLAN-T5-XL",
                url="https://arxiv.org/abs/2403.14403v2")
FLAN_T5_XL = Model("FLAN-T5-XL", "google/flan-t5-xl")
#: Each dataset's corpus, by hopkit's name where hopkit stores it under one, with its words.
CORPORA = {"nq": ("wiki18", "DPR's December 2018 Wikipedia (Karpukhin et al. 2020), 21M 100-word passages"),
           "triviaqa": ("wiki18", "DPR's December 2018 Wikipedia (Karpukhin et al. 2020), 21M 100-word passages"),
           "hotpotqa": ("ircot-hotpotqa", "IRCoT's HotpotQA corpus: 5,233,329 Wikipedia abstracts"),
           "2wikimultihopqa": ("ircot-2wikimultihopqa", "IRCoT's 2WikiMultihopQA corpus: 430,225 paragraphs"),
           "musique": ("ircot-musique", "IRCoT's MuSiQue corpus: 139,416 paragraphs")}
INGEST = ("hopkit ingest ircot PROCESSED_TEST_FILE --name {stored} --corpus CORPUS_FILES  # IRCoT's 500 test "
          "questions (StonyBrookNLP/ircot download/processed_data.sh) and the dataset's corpus")
NOTES = ("IRCoT's prompts and implementation details (Trivedi et al. 2023), section 4.4",
         "the test questions are IRCoT's: 500 per dataset")

#: Table 2's (EM, F1) by row and dataset, as printed (percent).
TABLE_2: Mapping[str, Mapping[str, tuple[float, float]]] = {
    "No Retrieval": {"nq": (14.20, 19.00), "triviaqa": (25.00, 31.80), "musique": (2.40, 10.70),
                     "hotpotqa": (16.60, 22.71), "2wikimultihopqa": (27.40, 32.04)},
    "Single-step Approach": {"nq": (37.80, 47.30), "triviaqa": (53.60, 62.40), "musique": (13.80, 22.80),
                             "hotpotqa": (34.40, 46.15), "2wikimultihopqa": (41.60, 47.90)},
    "Adaptive-RAG (Ours)": {"nq": (37.80, 47.30), "triviaqa": (52.20, 60.70), "musique": (23.60, 31.80),
                            "hotpotqa": (42.00, 53.82), "2wikimultihopqa": (40.60, 49.75)},
    "Multi-step Approach": {"nq": (38.60, 47.80), "triviaqa": (53.80, 62.40), "musique": (23.00, 31.90),
                            "hotpotqa": (44.60, 56.54), "2wikimultihopqa": (49.60, 58.85)},
}


def table_rows(method: str, run: str, row: str, note: str = "") -> tuple[PublishedResult, ...]:
    """Table 2's ``row`` (EM and F1 on each dataset hopkit ingests) as published results set beside hopkit's ``run``
    of ``method``."""
    results = []
    for dataset, pair in TABLE_2[row].items():
        corpus, corpus_title = CORPORA[dataset]
        setting = Setting(model=FLAN_T5_XL, corpus=corpus, corpus_title=corpus_title, retriever="BM25",
                          retrieval="bm25", top_k=None, questions=Questions("test", count=500), notes=NOTES,
                          ingest=INGEST)
        results.extend(PublishedResult(method=method, run=run, row=row, dataset=dataset, metric=metric, value=value,
                                       source=SOURCE, setting=setting, note=note)
                       for metric, value in zip(("em", "f1"), pair))
    return tuple(results)
