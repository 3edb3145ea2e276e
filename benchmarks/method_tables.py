"""MIGRES's and SearChain's own cost and behaviour tables, read from the stored results' traces.

MIGRES (the columns of the paper's Tables 4-6, per answered question):

- *generation calls* (Table 4's "# API"): the model calls of the Main, Query, Leaf and
  knowledge modules, each retry counted (the paper's reranker and NLI model were not
  API calls); *scoring calls*: every other model call, i.e. the LLM judges' (relevance
  and NLI), from the usage record;
- *iterations* (Table 4's "# Iter", Table 6's "# Avg. Iter"): Main Module steps;
- *passages* (Table 4's "# Passages", whose text gives them per question: "the total
  number of passages is less than 5"): distinct corpus passages shown to the Leaf Module;
- *knowledge tokens* (Table 5's "# Tokens", "tokens consumption of external knowledge
  for each instance in the Leaf Module"): the method's own count (the trace keeps ids,
  not texts), LLM knowledge included;
- *knowledge prompts*: LLM knowledge prompting calls (what Table 6 switches off);
- seconds per question split by module: the wall seconds MIGRES records for each
  module's model calls, the knowledge filter (the relevance judge) and the NLI check,
  retrieval from the usage record, the rest as "other".

SearChain (per answered question; node shares pooled over every processed node):

- Table 2's knowledge sources: shares of processed nodes whose answer came from the
  model (``kept``), was corrected by IR, was completed by IR, or stayed unsolved;
- rounds (Table 6's r), words into and out of the model (Table 6's n and m), seconds;
- traceability as the method stores it: marks, valid marks, SKC (Table 5) and, when the
  citation check ran, ALCE citation recall and precision.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import fmean
from typing import AbstractSet, Any, Iterable, Mapping, Sequence

from hopkit.methods.searchain.steps import (SearChainRound, SearChainSummary, SearChainTracing, SearChainVerify,
                                            searchain_payload)
from hopkit.traces import Step, Trace

GENERATING_MODULES = ("main", "final_main", "query", "leaf")
MIGRES_SECONDS = ("main", "final_main", "query", "leaf", "knowledge", "filter", "nli")
SOURCES = {"kept": "llm", "corrected": "corrected", "completed": "completed", "left_unsolved": "unsolved"}


def _module(step: Step) -> str | None:
    module = step.extra.get("module")
    return module if isinstance(module, str) else None


def migres_generation_calls(trace: Trace) -> int:
    """Table 4's "# API": model calls of the generating modules (retries counted), from the trace."""
    calls = 0
    for step in trace.steps:
        module = _module(step)
        if module in GENERATING_MODULES:
            calls += len(step.extra.get("generations", ()))
        elif module == "knowledge":
            calls += 1
    return calls


def migres_question(stored: Mapping[str, Any], model_calls: int, retrieval_seconds: float,
                    total_seconds: float, prompt_tokens: int = 0, cached_prompt_tokens: int = 0) -> dict[str, float]:
    """One question's MIGRES numbers.

    Args:
        stored: the result's stored trace (metadata and typed trace).
        model_calls: every model call of the question (the usage record's).
        retrieval_seconds: the usage record's retrieval seconds.
        total_seconds: the question's wall time.
        prompt_tokens: every prompt token of the question (the usage record's).
        cached_prompt_tokens: those the backend's prefix cache served.

    Returns:
        ``generation_calls``, ``scoring_calls``, ``iterations``, ``passages``,
        ``knowledge_tokens``, ``knowledge_prompts``, and, when the method recorded them,
        ``seconds:<module>`` for each module, ``seconds:retrieval``, ``seconds:other``, and
        the prompt tokens of the generating modules and of the judges with their cached
        parts (``prompt:generation``, ``cached:generation``, ``prompt:judges``, ``cached:judges``).
    """
    trace = Trace.from_result_trace(stored)
    generation = migres_generation_calls(trace)
    shown = {pid for step in trace.steps if step.kind == "extract" for pid in step.paragraph_ids}
    row = {
        "generation_calls": float(generation),
        "scoring_calls": float(max(0, model_calls - generation)),
        "iterations": float(sum(1 for s in trace.steps if _module(s) in ("main", "final_main"))),
        "passages": float(len(shown)),
        "knowledge_tokens": float(stored.get("knowledge_tokens", 0)),
        "knowledge_prompts": float(sum(1 for s in trace.steps if _module(s) == "knowledge")),
    }
    seconds = stored.get("seconds")
    if isinstance(seconds, Mapping):
        parts = {module: float(seconds.get(module, 0.0)) for module in MIGRES_SECONDS}
        parts["retrieval"] = retrieval_seconds
        parts["other"] = max(0.0, total_seconds - sum(parts.values()))
        row.update({f"seconds:{name}": value for name, value in parts.items()})
    generation_prompt, generation_cached = stored.get("prompt_tokens"), stored.get("cached_prompt_tokens")
    if isinstance(generation_prompt, Mapping) and isinstance(generation_cached, Mapping):
        row["prompt:generation"] = float(sum(generation_prompt.values()))
        row["cached:generation"] = float(sum(generation_cached.values()))
        row["prompt:judges"] = float(prompt_tokens) - row["prompt:generation"]
        row["cached:judges"] = float(cached_prompt_tokens) - row["cached:generation"]
    return row


def searchain_question(stored: Mapping[str, Any]) -> dict[str, float]:
    """One question's SearChain numbers: node sources (counts), rounds, words and traceability.

    Returns:
        ``nodes:<source>`` for each of Table 2's sources (and ``unsolved``), ``rounds``,
        ``words_in``, ``words_out``, ``traced`` (1 when the tracing call was made),
        ``marks``, ``valid_marks``, ``skc``, and ``citation_recall`` / ``citation_precision``
        when the citation check ran.
    """
    payloads = [searchain_payload(step) for step in Trace.from_result_trace(stored).steps]
    summary = SearChainSummary.from_result_trace(stored)
    row = {f"nodes:{source}": 0.0 for source in SOURCES.values()}
    for payload in payloads:
        if isinstance(payload, SearChainVerify) and payload.verdict in SOURCES:
            row[f"nodes:{SOURCES[payload.verdict]}"] += 1
    row["rounds"] = float(sum(1 for payload in payloads if isinstance(payload, SearChainRound)))
    row["words_in"] = float(summary.words_in)
    row["words_out"] = float(summary.words_out)
    tracing = [payload for payload in payloads if isinstance(payload, SearChainTracing)]
    scores = tracing[-1].traceability if tracing else {}
    row["traced"] = 1.0 if tracing else 0.0
    for key in ("marks", "valid_marks", "skc"):
        row[key] = float(scores.get(key, 0))
    for key in ("citation_recall", "citation_precision"):
        if key in scores:
            row[key] = float(scores[key])
    return row


@dataclass(frozen=True)
class RunRows:
    """The per-question rows of one run, labelled for a table."""

    label: str
    dataset: str
    rows: Sequence[Mapping[str, float]]
    seconds: Sequence[float] = ()

    def mean(self, key: str) -> float | None:
        """The mean of ``key`` over the questions that have it (None if none has)."""
        values = [row[key] for row in self.rows if key in row]
        return fmean(values) if values else None


def _cell(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def migres_table(runs: Sequence[RunRows]) -> str:
    """Tables 4-6's columns per MIGRES run, then the seconds per question split by module."""
    lines = ["| run | dataset | n | generation calls/q (# API) | scoring calls/q | iterations/q | passages/q | "
             "knowledge tokens/q | knowledge prompts/q |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for run in runs:
        lines.append(f"| {run.label} | {run.dataset} | {len(run.rows)} | {_cell(run.mean('generation_calls'))} | "
                     f"{_cell(run.mean('scoring_calls'))} | {_cell(run.mean('iterations'), 2)} | "
                     f"{_cell(run.mean('passages'))} | {_cell(run.mean('knowledge_tokens'), 0)} | "
                     f"{_cell(run.mean('knowledge_prompts'), 2)} |")
    lines += ["", "Prompt tokens per question and the share the prefix cache served, for the generating modules "
              "(Main, Query, Leaf, knowledge) and for the LLM judges (relevance, NLI); - = not recorded by this run:",
              "", "| run | dataset | generation prompt tokens/q | cached | judges' prompt tokens/q | cached |",
              "|---|---|---:|---:|---:|---:|"]
    for run in runs:
        cells = []
        for part in ("generation", "judges"):
            prompt, cached = run.mean(f"prompt:{part}"), run.mean(f"cached:{part}")
            share = None if prompt is None or cached is None or not prompt else 100 * cached / prompt
            cells += [_cell(prompt, 0), "-" if share is None else f"{share:.0f}%"]
        lines.append(f"| {run.label} | {run.dataset} | {' | '.join(cells)} |")
    parts = (*MIGRES_SECONDS, "retrieval", "other")
    lines += ["", "Seconds per question, by module (wall time; filter = the relevance judge's scoring, nli = the "
              "entailment judge's; - = not recorded by this run):", "",
              "| run | dataset | s/q | " + " | ".join(parts) + " |", "|---|---|---:|" + "---:|" * len(parts)]
    for run in runs:
        total = fmean(run.seconds) if run.seconds else None
        cells = " | ".join(_cell(run.mean(f"seconds:{part}"), 2) for part in parts)
        lines.append(f"| {run.label} | {run.dataset} | {_cell(total, 2)} | {cells} |")
    return "\n".join(lines)


def node_shares(run: RunRows) -> dict[str, float | None]:
    """Table 2: each source's share (%) of the run's processed nodes, pooled over its questions."""
    counts = {source: sum(row.get(f"nodes:{source}", 0.0) for row in run.rows) for source in SOURCES.values()}
    total = sum(counts.values())
    return {source: (100 * count / total if total else None) for source, count in counts.items()}


def searchain_table(runs: Sequence[RunRows]) -> str:
    """Table 2's knowledge sources, Table 6's costs and the traceability scores per SearChain run."""
    lines = ["| run | dataset | n | nodes/q | LLM % | corrected % | completed % | unsolved % | rounds/q (r) | "
             "words in/q (n) | words out/q (m) | s/q (t) | traced % | marks/q | valid marks/q | SKC | "
             "citation recall | citation precision |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for run in runs:
        shares = node_shares(run)
        nodes = fmean(sum(row.get(f"nodes:{s}", 0.0) for s in SOURCES.values()) for row in run.rows) \
            if run.rows else None
        traced = run.mean("traced")
        recall, precision = run.mean("citation_recall"), run.mean("citation_precision")
        lines.append(
            f"| {run.label} | {run.dataset} | {len(run.rows)} | {_cell(nodes, 2)} | "
            + " | ".join(_cell(shares[s]) for s in SOURCES.values())
            + f" | {_cell(run.mean('rounds'), 2)} | {_cell(run.mean('words_in'), 0)} | "
            f"{_cell(run.mean('words_out'), 0)} | {_cell(fmean(run.seconds) if run.seconds else None, 2)} | "
            f"{_cell(None if traced is None else 100 * traced)} | {_cell(run.mean('marks'), 2)} | "
            f"{_cell(run.mean('valid_marks'), 2)} | {_cell(run.mean('skc'), 2)} | "
            f"{_cell(None if recall is None else 100 * recall)} | "
            f"{_cell(None if precision is None else 100 * precision)} |")
    return "\n".join(lines)


def run_rows(method: str, label: str, dataset: str, results: Iterable[Any],
             compared: AbstractSet[str]) -> RunRows:
    """The rows of one stored run's answered questions among ``compared``."""
    rows: list[Mapping[str, float]] = []
    seconds: list[float] = []
    for result in results:
        if result.query_id not in compared or result.error is not None:
            continue
        usage = result.usage
        if method == "migres":
            rows.append(migres_question(result.trace, usage.llm_calls, usage.retrieval_seconds,
                                        usage.total_seconds, usage.prompt_tokens, usage.cached_prompt_tokens))
        else:
            rows.append(searchain_question(result.trace))
        seconds.append(usage.total_seconds)
    return RunRows(label, dataset, rows, seconds)


def method_sections(store: Any, runs: Sequence[Any], labels: Mapping[str, str],
                    compared: AbstractSet[str]) -> list[str]:
    """The MIGRES and SearChain tables of qa_bench's section (none when no such run is there)."""
    by_method: dict[str, list[RunRows]] = {"migres": [], "searchain": []}
    for run in runs:
        if run.method in by_method:
            by_method[run.method].append(run_rows(run.method, labels.get(run.run_id, run.name), run.dataset,
                                                  store.results(run.run_id), compared))
    sections: list[str] = []
    if by_method["migres"]:
        sections += ["MIGRES's own costs (Tables 4-6 of the paper; per answered question, from the stored "
                     "traces; generation calls = the Main, Query, Leaf and knowledge modules' model calls, "
                     "scoring calls = the LLM judges'; passages = distinct passages shown to the Leaf Module; "
                     "knowledge tokens = tokens of knowledge shown to it):", migres_table(by_method["migres"])]
    if by_method["searchain"]:
        sections += ["SearChain's knowledge sources (Table 2, shares of processed nodes), costs (Table 6: rounds r, "
                     "words into and out of the model n and m, seconds t) and traceability (Table 5's SKC; "
                     "marks that resolve to a node's passage), per answered question, from the stored traces:",
                     searchain_table(by_method["searchain"])]
    return sections
