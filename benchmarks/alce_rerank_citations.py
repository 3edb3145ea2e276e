"""What RERANK's citation recall had to choose from, in the QA benchmark's stored runs.

ALCE's RERANK (``tools/rerank_outputs.py``) keeps the first of its sampled answers with the highest
citation recall and answers "" when no answer's recall is above 0. For the ``alce-rerank`` run of qa_bench
on the first questions of each sample (nothing is run): the sampled answers that cite a document, those
with a recall above 0, the questions left without an answer, and F1 and cover-EM (the answers are
sentences: EM is 0) as run against the same answers with the first sample kept when no recall is above 0
(the choice ``numpy.argmax`` would make), paired on the same questions. Written to docs/notebook.md,
section ``alce-rerank-citations``::

    HOPKIT_DATA_DIR=../shared/data .venv/bin/python -m benchmarks.alce_rerank_citations \\
        --datasets hotpotqa 2wikimultihopqa musique
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass, replace
from typing import Any, Sequence

from hopkit.campaign.environment import NOTEBOOK_MD
from hopkit.campaign.page_sections import command_line, markdown_table, write_section
from hopkit.campaign.baseline_costs import attempted_results
from hopkit.campaign.bench_store import open_store, stored_runs_parser
from hopkit.campaign.paired_tables import metric_cells
from hopkit.campaign.qa_bench import ingest
from hopkit.evaluation.compare import compare_scores
from hopkit.evaluation.scoring import QuestionScores, score_question
from hopkit.methods.alce.method import prediction
from hopkit.methods.alce.steps import PAYLOADS, ALCESample
from hopkit.records import Query
from hopkit.store.store import Store
from hopkit.traces import Trace
from hopkit.traces.payload import payload_of

METRICS = ("f1", "cover_em")
HEADER = ["dataset", "n", "samples citing a document", "samples with recall > 0", "questions left empty",
          *(cell for label in ("F1", "cover-EM") for cell in (
              f"{label} first sample kept", f"{label} RERANK", f"{label} difference [95%]", "won/lost", "p"))]
_CITED = re.compile(r"\[\d+")


@dataclass(frozen=True)
class Choice:
    """One question's sampled answers and the two predictions: RERANK's as stored, and the first sample's
    when no recall is above 0."""

    query_id: str
    samples: tuple[ALCESample, ...]
    stored: str
    first_kept: str


def choice_of(result: Any) -> Choice:
    steps = Trace.from_result_trace(result.trace).steps
    samples = tuple(p for p in (payload_of(step, PAYLOADS) for step in steps) if isinstance(p, ALCESample))
    unchosen = samples and all(s.citation_recall <= 0 for s in samples)
    first_kept = prediction(samples[0].generation) if unchosen else result.prediction
    return Choice(result.query_id, samples, result.prediction, first_kept)


def scored(queries: dict[str, Query], choices: Sequence[Choice], dataset: str) -> tuple[list[QuestionScores], ...]:
    """Each question's scores with RERANK's answer and with the first sample kept."""
    first_kept, stored = [], []
    for choice in choices:
        for answers, predicted in ((first_kept, choice.first_kept), (stored, choice.stored)):
            scores = score_question(queries[choice.query_id], predicted, None)
            answers.append(replace(scores, query_id=f"{dataset}/{choice.query_id}"))
    return first_kept, stored


def citation_row(dataset: str, choices: Sequence[Choice], first_kept: list[QuestionScores],
                 stored: list[QuestionScores]) -> str:
    samples = [s for c in choices for s in c.samples]
    citing = sum(bool(_CITED.search(s.generation)) for s in samples)
    supported = sum(s.citation_recall > 0 for s in samples)
    empty = sum(not c.stored for c in choices)
    comparison = compare_scores(first_kept, stored, metrics=METRICS)
    cells = [cell for m in comparison.metrics for cell in metric_cells(m)]
    return "| " + " | ".join([dataset, str(len(stored)), f"{citing} of {len(samples)}",
                              f"{supported} of {len(samples)}", f"{empty} of {len(choices)}", *cells]) + " |"


def citations_table(store: Store, session_factory: Any, llm: Any, llm_name: str, datasets: Sequence[str],
                    limit: int) -> str:
    """The section's table, a pooled row after the samples' (``llm`` names the runs; nothing is generated)."""
    rows, pooled = [], ([], [], [])
    for dataset in datasets:
        ingest(store, dataset)
        results = attempted_results(store, session_factory, llm, llm_name, "alce-rerank", dataset, limit)
        if not results:
            continue
        queries = {q.id: q for q in store.queries(dataset, limit=limit)}
        choices = [choice_of(result) for result in results]
        first_kept, stored = scored(queries, choices, dataset)
        rows.append(citation_row(dataset, choices, first_kept, stored))
        for into, part in zip(pooled, (choices, first_kept, stored)):
            into.extend(part)
    if len(rows) > 1:
        rows.append(citation_row("pooled", *pooled))
    return markdown_table(HEADER, rows) if rows else "No stored run yet."


def command_parser() -> argparse.ArgumentParser:
    """The command line (tests/benchmarks/test_paired_sections.py reads the section's command with it)."""
    return stored_runs_parser(__doc__)


def main() -> int:
    args = command_parser().parse_args()
    command = command_line()
    session_factory, store, llm = open_store(args)
    write_section("alce-rerank-citations", "\n\n".join([
        "## ALCE RERANK's choice: sampled answers with citations, and the questions it leaves empty "
        "(stored runs, first questions of each sample)",
        f"Command: `{command}`",
        "The `alce-rerank` runs of qa_bench (Qwen2.5-Coder-1.5B, 4k context, 4 answers sampled at temperature "
        "0.5, the LLM as entailment judge). A sample's citation recall is above 0 only when one of its sentences "
        "cites a document of the prompt and the documents entail it; when no sample's is, ALCE answers \"\". "
        "*first sample kept*: the same stored answers, with the first sample read instead of \"\" on those "
        "questions (difference: first sample kept − RERANK; p: sign-flip permutation for F1, exact McNemar "
        "for cover-EM).",
        citations_table(store, session_factory, llm, args.llm, args.datasets, args.limit),
    ]), NOTEBOOK_MD)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
