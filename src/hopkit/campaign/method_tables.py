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
- seconds per question split by module, from the usage record: each module's label
  (``migres:main`` ...), the knowledge filter (``judge:relevance``) and the NLI check
  (``judge:entailment``), retrieval, the rest as "other"; prompt tokens likewise. Runs
  saved before the usage record had labels read these from the seconds and tokens
  MIGRES then kept in its result's metadata.

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

from hopkit.methods.migres.steps import MIGRESSummary, migres_payload
from hopkit.methods.searchain.steps import (SearChainRound, SearChainSummary, SearChainTracing, SearChainVerify,
                                            searchain_payload)
from hopkit.report.escape import markdown_cell
from hopkit.traces import Trace
from hopkit.usage import Usage

GENERATING_MODULES = ("main", "final_main", "query", "leaf")
MIGRES_SECONDS = ("main", "final_main", "query", "leaf", "knowledge", "filter", "nli")
#: The usage component of each part of MIGRES_SECONDS.
MIGRES_COMPONENTS = {**{module: f"migres:{module}" for module in MIGRES_SECONDS[:5]},
                     "filter": "judge:relevance", "nli": "judge:entailment"}
SOURCES = {"kept": "llm", "corrected": "corrected", "completed": "completed", "left_unsolved": "unsolved"}


def _migres_modules(trace: Trace) -> list[tuple[str, tuple[str, ...]]]:
    """Each MIGRES step's module and the responses it read (retries included), from its typed payload."""
    found = []
    for step in trace.steps:
        payload = migres_payload(step)
        if payload is not None:
            found.append((payload.module, tuple(getattr(payload, "generations", ()))))
    return found


def migres_generation_calls(trace: Trace) -> int:
    """Table 4's "# API": model calls of the generating modules (retries counted), from the trace."""
    modules = _migres_modules(trace)
    return (sum(len(generations) for module, generations in modules if module in GENERATING_MODULES)
            + sum(1 for module, _ in modules if module == "knowledge"))


def migres_question(stored: Mapping[str, Any], usage: Usage) -> dict[str, float]:
    """One question's MIGRES numbers.

    Args:
        stored: the result's stored trace (metadata and typed trace).
        usage: the result's usage record.

    Returns:
        ``generation_calls``, ``scoring_calls``, ``iterations``, ``passages``,
        ``knowledge_tokens``, ``knowledge_prompts``, ``seconds:<module>`` for each module,
        ``seconds:retrieval``, ``seconds:other``, and the prompt tokens of the generating
        modules and of the judges with their cached parts (``prompt:generation``,
        ``cached:generation``, ``prompt:judges``, ``cached:judges``); a run saved before
        the usage record had labels has the seconds and tokens only if MIGRES kept them.
    """
    trace = Trace.from_result_trace(stored)
    modules = [module for module, _ in _migres_modules(trace)]
    generation = migres_generation_calls(trace)
    shown = {pid for step in trace.steps if step.kind == "extract" for pid in step.paragraph_ids}
    row = {
        "generation_calls": float(generation),
        "scoring_calls": float(max(0, usage.llm_calls - generation)),
        "iterations": float(sum(1 for module in modules if module in ("main", "final_main"))),
        "passages": float(len(shown)),
        "knowledge_tokens": float(MIGRESSummary.from_result_trace(stored).knowledge_tokens),
        "knowledge_prompts": float(modules.count("knowledge")),
    }
    labels = [entry for name, entry in usage.components.items() if name.startswith("migres:")]
    kept_seconds, kept_prompt, kept_cached = (stored.get(key) for key in ("seconds", "prompt_tokens",
                                                                          "cached_prompt_tokens"))
    parts: dict[str, float] | None = None
    generation_tokens: tuple[float, float] | None = None
    if labels:
        parts = {module: usage.component(name).total_seconds for module, name in MIGRES_COMPONENTS.items()}
        generation_tokens = (sum(e.prompt_tokens for e in labels), sum(e.cached_prompt_tokens for e in labels))
    else:  # saved before the usage record had labels: what MIGRES kept in its metadata, if it kept it
        if isinstance(kept_seconds, Mapping):
            parts = {module: float(kept_seconds.get(module, 0.0)) for module in MIGRES_SECONDS}
        if isinstance(kept_prompt, Mapping) and isinstance(kept_cached, Mapping):
            generation_tokens = (sum(kept_prompt.values()), sum(kept_cached.values()))
    if parts is not None:
        parts["retrieval"] = usage.retrieval_seconds
        parts["other"] = max(0.0, usage.total_seconds - sum(parts.values()))
        row.update({f"seconds:{name}": value for name, value in parts.items()})
    if generation_tokens is not None:
        row["prompt:generation"], row["cached:generation"] = map(float, generation_tokens)
        row["prompt:judges"] = float(usage.prompt_tokens) - row["prompt:generation"]
        row["cached:judges"] = float(usage.cached_prompt_tokens) - row["cached:generation"]
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
        lines.append(f"| {markdown_cell(run.label)} | {markdown_cell(run.dataset)} | {len(run.rows)} | "
                     f"{_cell(run.mean('generation_calls'))} | "
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
        lines.append(f"| {markdown_cell(run.label)} | {markdown_cell(run.dataset)} | {' | '.join(cells)} |")
    parts = (*MIGRES_SECONDS, "retrieval", "other")
    lines += ["", "Seconds per question, by module (wall time; filter = the relevance judge's scoring, nli = the "
              "entailment judge's; - = not recorded by this run):", "",
              "| run | dataset | s/q | " + " | ".join(parts) + " |", "|---|---|---:|" + "---:|" * len(parts)]
    for run in runs:
        total = fmean(run.seconds) if run.seconds else None
        cells = " | ".join(_cell(run.mean(f"seconds:{part}"), 2) for part in parts)
        lines.append(f"| {markdown_cell(run.label)} | {markdown_cell(run.dataset)} | {_cell(total, 2)} | {cells} |")
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
            f"| {markdown_cell(run.label)} | {markdown_cell(run.dataset)} | {len(run.rows)} | {_cell(nodes, 2)} | "
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
            rows.append(migres_question(result.trace, usage))
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
