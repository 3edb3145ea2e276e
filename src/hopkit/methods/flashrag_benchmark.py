"""FlashRAG's benchmark (Jin et al., "FlashRAG: A Modular Toolkit for Efficient Retrieval-Augmented Generation
Research"): where its numbers were read and the setting they were measured in, declared once for the
method packages whose ``published`` modules cite it.

Read at RUC-NLPIR/FlashRAG commit 1ee5249 (the newest stored here):

* ``docs/original_docs/benchmark_result.xlsx``, the result sheet: tab ``Base`` (EM, Acc and F1 of every
  method with Llama3-8B-Instruct) and tab ``Reasoning Method`` (EM, Acc and F1 of the reasoning models,
  each its own checkpoint). The README's two tables show a subset of the same numbers (EM on NQ,
  TriviaQA and PopQA of the reasoning rows, F1 on the others), except R1-Searcher's row: see
  ``search_agent/published.py``.
* ``docs/original_docs/baseline_details.md``, "Global Setting": e5-base-v2, five documents per query, a
  Faiss Flat index over "the DPR version of the Wikipedia December 2018 dataset"; Llama3-8B-Instruct,
  at most 2048 input and 32 output tokens, no sampling; one prompt for every method; the test split where
  a dataset has one (nq, tqa, popqa, webq), else dev; "the first 1000 samples from each dataset".
* ``examples/methods/run_exp.py`` and ``examples/methods/my_config.yaml``: the reasoning rows' checkpoints,
  16,384 input and 512 new tokens; ``retrieval_topk: 5`` left as the config sets it.

The sheet's ``Acc`` (a golden answer contained in the prediction) is left out: hopkit's cover-EM matches
whole words, so the two differ (docs/data-formats.md). WebQuestions is left out: it is none of the seven
benchmarks hopkit ingests by name (``flashrag/NAME``).
"""

from __future__ import annotations

from typing import Mapping

from hopkit.methods.published import Model, PublishedResult, Questions, Setting, Source

REPOSITORY = "RUC-NLPIR/FlashRAG"
COMMIT = "1ee524901aa3daf009f97b7a31e7a1b58eee8206"
SHEET_FILE = "docs/original_docs/benchmark_result.xlsx"
TABLE = "flashrag"


def _source(tab: str) -> Source:
    return Source(table=TABLE, title=f"FlashRAG benchmark sheet, tab {tab!r}", file=SHEET_FILE,
                  url=f"https://github.com/{REPOSITORY}/blob/{COMMIT}/{SHEET_FILE}", repository=REPOSITORY,
                  commit=COMMIT)


BASE_SHEET = _source("Base")
REASONING_SHEET = _source("Reasoning Method")

#: The split each benchmark is scored on (baseline_details.md: test where the dataset has one, else dev).
SPLITS = {"nq": "test", "triviaqa": "test", "popqa": "test", "hotpotqa": "dev", "2wikimultihopqa": "dev",
          "musique": "dev", "bamboogle": "test"}
FIRST = 1000
CORPUS = "wiki18"
CORPUS_TITLE = "DPR's December 2018 Wikipedia (wiki18_100w, 100-word passages)"
RETRIEVER = "e5-base-v2, Faiss Flat"
RETRIEVAL = "e5-wiki18-flat"
TOP_K = 5
LLAMA3_8B = Model("Llama3-8B-Instruct", "meta-llama/Meta-Llama-3-8B-Instruct")
BASE_NOTES = ("max input 2048 tokens (README, baseline_details.md; the sheet's tab says 4k), 32 new tokens, greedy",
              "one prompt for every method: the documents as 'Doc i (Title: ...)', the question as the user turn "
              "(baseline_details.md)")
REASONING_NOTES = ("max input 16,384 tokens, 512 new tokens (run_exp.py)",
                   "the first 1,000 questions: the benchmark's global setting (baseline_details.md); the reasoning "
                   "tab does not restate it")


def _setting(dataset: str, model: Model, notes: tuple[str, ...]) -> Setting:
    return Setting(model=model, corpus=CORPUS, corpus_title=CORPUS_TITLE, retriever=RETRIEVER, retrieval=RETRIEVAL,
                   top_k=TOP_K, questions=Questions(SPLITS[dataset], first=FIRST), notes=notes)


def sheet_rows(method: str, run: str, row: str, scores: Mapping[str, tuple[float, float]], *,
               model: Model | None = None, note: str = "") -> tuple[PublishedResult, ...]:
    """A row of the sheet as published results: ``scores`` is ``{dataset: (EM, F1)}`` as the sheet gives them.

    Args:
        method: the registered method the row is set beside.
        run: the hopkit pipeline config that runs it.
        row: the row's name in the sheet.
        model: the reasoning tab's checkpoint (None: the Base tab, Llama3-8B-Instruct).
        note: what baseline_details.md or run_exp.py says of this method's own settings.
    """
    source, notes = (BASE_SHEET, BASE_NOTES) if model is None else (REASONING_SHEET, REASONING_NOTES)
    return tuple(PublishedResult(method=method, run=run, row=row, dataset=dataset, metric=metric, value=value,
                                 source=source, setting=_setting(dataset, model or LLAMA3_8B, notes), note=note)
                 for dataset, pair in scores.items() for metric, value in zip(("em", "f1"), pair))
