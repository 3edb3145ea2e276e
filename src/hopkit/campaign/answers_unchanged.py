"""Issue 30's check that a refactor left the answers unchanged: NoR, OneR, IRCoT, SearChain and
MIGRES rerun on the first questions of each sample, compared with the saved runs.

For each method and dataset, the saved run (``benchmarks/results/runs/*.jsonl.gz``) of qa_bench's
variant of that method with qa_bench's LLM (Qwen2.5-Coder-1.5B, 4k, greedy) is the "before": the
one whose run id equals the rebuilt pipeline's, else the one of the same name with the fewest
differing config values (a tie, e.g. two IRCoT variants, matches none). The "after" is the same
pipeline (qa_bench's ``pipeline_for``) run with ``limit`` in a scratch store (the dataset ingested
as qa_bench does; no saved run is restored into it, see ``saved_runs.is_bench_store``). Per
question the prediction (or ``error <class>``) is compared, and the run ids: an equal id means
an unchanged configuration hash. With ``--against FILE`` the "before" is a previous output of
this script instead (e.g. the baseline commit's), which also covers runs with no saved file.

    HOPKIT_DATA_DIR=../shared/data .venv/bin/hopkit campaign answers-unchanged \\
        [--methods nor oner ircot searchain migres] [--datasets ...] [--limit 5] \\
        [--store .hopkit-bench/unchanged.db] [--out benchmarks/results/answers_unchanged.json]

Each (method, dataset) cell loads the model afresh: greedy answers can flip on near ties with
the llama.cpp prompt cache a process has built, so a cell's answers must not depend on the cells
before it (or on where an interrupted run stopped). A cell whose run holds fewer than ``limit``
answers (interrupted) is deleted and run again from its first question; a complete one is read
from the store, so a rerun of the command carries on where it stopped. Use a fresh store per code
version; rows of cells not run by this command are kept in ``--out``.

``--compare BEFORE.json AFTER.json`` sets two outputs side by side, cell by cell (no model).
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import hopkit
from hopkit.campaign.page_sections import command_line
from hopkit.campaign.environment import BENCH_HOME, LLM_NAME, RESULTS, ROOT, RUNS, use_home
from hopkit.campaign.qa_bench import ingest, pipeline_for
from hopkit.campaign.qa_pipelines import SKIPPED
from hopkit.campaign.saved_runs import is_bench_store
from hopkit.cli.numbers import integer
from hopkit.config import load_llm
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store

METHODS = ("nor", "oner", "ircot", "searchain", "migres")  # cheapest first
DATASETS = ("hotpotqa", "2wikimultihopqa", "musique", "strategyqa")


@dataclass(frozen=True)
class SavedRun:
    """One ``hopkit export`` file: its run header and each question's answer, in file order."""

    path: Path
    run_id: str
    name: str
    method: str
    dataset: str
    config: dict[str, Any]
    answers: dict[str, str]


def answer(prediction: str, error: str | None) -> str:
    """What is compared: the prediction, or the error's class when the question failed."""
    return prediction if error is None else f"error {error.split(':', 1)[0]}"


def read_saved(path: Path) -> SavedRun:
    """The run header and the answers of an export file (format: hopkit/store/export_format.py)."""
    run: dict[str, Any] = {}
    answers: dict[str, str] = {}
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for text in lines:
            record = json.loads(text)
            if "run" in record:
                run = record["run"]
            elif "result" in record:
                result = record["result"]
                answers[result["query_id"]] = answer(result["prediction"], result["error"])
    return SavedRun(path, run["run_id"], run["name"], run["method"], run["dataset"], run["config"], answers)


def leaves(config: Any, prefix: str = "") -> dict[str, Any]:
    """A nested config as {dotted key: value}."""
    if not isinstance(config, dict):
        return {prefix: config}
    return {k: v for key, value in config.items() for k, v in leaves(value, f"{prefix}{key}.").items()}


def config_diff(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """The dotted keys whose values differ between two run configs."""
    la, lb = leaves(a), leaves(b)
    absent = object()
    return sorted(key.rstrip(".") for key in la.keys() | lb.keys() if la.get(key, absent) != lb.get(key, absent))


def match_saved(spec: Any, saved: list[SavedRun]) -> tuple[SavedRun | None, str]:
    """The saved run of the same configuration (see the module docstring), and how it matched."""
    same = [s for s in saved if s.run_id == spec.run_id and s.answers]
    if same:
        return same[0], "same run id"
    candidates = sorted((len(config_diff(s.config, spec.config)), s.run_id, s) for s in saved
                        if (s.name, s.method, s.dataset) == (spec.name, spec.method, spec.dataset) and s.answers)
    if not candidates:
        return None, f"no saved run named {spec.name}"
    if len(candidates) > 1 and candidates[0][0] == candidates[1][0]:
        return None, "ambiguous: " + "; ".join(f"{s.run_id} differs in {config_diff(s.config, spec.config)}"
                                              for _, _, s in candidates)
    best = candidates[0][2]
    return best, f"closest config, differs in {config_diff(best.config, spec.config)}"


def before_answers(method: str, dataset: str, spec: Any, saved: list[SavedRun],
                   against: dict[tuple[str, str], dict[str, Any]] | None) -> tuple[dict[str, str], dict[str, Any]]:
    """The "before" answers and where they come from (a saved run, or a row of ``--against``)."""
    if against is not None:
        row = against.get((method, dataset))
        if row is None:
            return {}, {"source": "against", "match": "no row in the --against file"}
        return row["after"], {"source": "against", "match": "--against row", "before_run_id": row["run_id"]}
    run, how = match_saved(spec, saved)
    if run is None:
        return {}, {"source": None, "match": how}
    return run.answers, {"source": str(run.path.relative_to(ROOT)), "match": how, "before_run_id": run.run_id,
                         "saved_order": list(run.answers)}


def compare(method: str, dataset: str, store: Store, pipeline: Any, limit: int, saved: list[SavedRun],
            against: dict[tuple[str, str], dict[str, Any]] | None) -> dict[str, Any]:
    """Run (or resume) one pipeline on the first ``limit`` questions and compare its answers."""
    spec = pipeline.run_spec()
    before, origin = before_answers(method, dataset, spec, saved, against)
    saved_order = origin.pop("saved_order", None)  # the file's order: the order the run answered in
    started = time.time()
    stored = len(store.finished_query_ids(spec.run_id)) if spec.run_id in {r.run_id for r in store.runs()} else 0
    if 0 < stored < limit:  # interrupted: its later answers would come from another cache history
        store.delete_run(spec.run_id)
    outcome = pipeline.run(limit=limit, progress=False)
    questions = [q.id for q in store.queries(dataset, limit=limit)]
    results = {r.query_id: answer(r.prediction, r.error) for r in store.results(outcome["run_id"])}
    after = {qid: results.get(qid, "<not run>") for qid in questions}
    compared = [qid for qid in questions if qid in before]
    diffs = [{"id": qid, "before": before[qid], "after": after[qid]} for qid in compared if before[qid] != after[qid]]
    return {"method": method, "dataset": dataset, **origin, "run_id": outcome["run_id"],
            "same_run_id": origin.get("before_run_id") == outcome["run_id"] if before else None,
            "questions": questions,
            "saved_order_same": saved_order is None or saved_order[:len(questions)] == questions,
            "missing_before": [qid for qid in questions if qid not in before],
            "same": len(compared) - len(diffs), "compared": len(compared), "differences": diffs,
            "after": after, "resumed": outcome["already_done"], "seconds": round(time.time() - started, 1)}


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as a plain-text table."""
    lines = [f"{'method':10} {'dataset':16} {'run id same?':13} {'same answers':13} differing (before -> after)"]
    for row in rows:
        same_id = {True: "yes", False: "NO", None: "-"}[row["same_run_id"]]
        answers = f"{row['same']}/{row['compared']}" if row["compared"] else f"- ({row['match'][:40]})"
        diffs = "; ".join(f"{d['id']}: {d['before']!r} -> {d['after']!r}" for d in row["differences"])
        lines.append(f"{row['method']:10} {row['dataset']:16} {same_id:13} {answers:13} {diffs}")
    return "\n".join(lines)


def git_commit() -> str:
    """The commit of the code that ran, with ``+dirty`` when src/ has uncommitted changes."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True).stdout.strip()
    return git("rev-parse", "--short", "HEAD") + ("+dirty" if git("status", "--porcelain", "src") else "")


def compare_outputs(before: Path, after: Path) -> str:
    """Two outputs of this script side by side: for each cell both ran, whether every answer is the same."""
    rows = {}
    for label, path in (("before", before), ("after", after)):
        output = json.loads(path.read_text())
        for row in output["rows"]:
            rows.setdefault((row["method"], row["dataset"]), {})[label] = (output["commit"], row["run_id"], row["after"])
    lines = [f"{'method':10} {'dataset':16} {'run id':8} answers ({before.name} -> {after.name})"]
    for (method, dataset), sides in rows.items():
        if len(sides) < 2:
            lines.append(f"{method:10} {dataset:16} {'-':8} only in {next(iter(sides))}")
            continue
        (_, id_a, a), (_, id_b, b) = sides["before"], sides["after"]
        differing = [f"{q}: {a[q]!r} -> {b.get(q)!r}" for q in a if a[q] != b.get(q)]
        same_id = "same" if id_a == id_b else "DIFFERS"
        lines.append(f"{method:10} {dataset:16} {same_id:8} {len(a) - len(differing)}/{len(a)} same {'; '.join(differing)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    given = sys.argv[1:] if argv is None else argv
    if given[:1] == ["--compare"]:  # --compare BEFORE.json AFTER.json: no model, no store
        print(compare_outputs(Path(given[1]), Path(given[2])))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", nargs="+", default=list(METHODS))
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--limit", type=integer(), default=5)
    parser.add_argument("--store", type=Path, default=BENCH_HOME / "unchanged.db")
    parser.add_argument("--out", type=Path, default=RESULTS / "answers_unchanged.json")
    parser.add_argument("--against", type=Path, help="compare with this earlier output instead of the saved runs")
    args = parser.parse_args(argv)
    args.store.parent.mkdir(parents=True, exist_ok=True)
    use_home(args.store.resolve().parent)
    session_factory = DBConnection(f"sqlite:///{args.store.resolve()}").get_session_factory()
    store = Store(session_factory)
    if is_bench_store(store):
        raise SystemExit(f"{args.store} is the bench store (saved runs are restored into it); use a scratch store")
    against = None
    if args.against:
        against = {(r["method"], r["dataset"]): r for r in json.loads(args.against.read_text())["rows"]}
    header = {"commit": git_commit(), "command": command_line(), "hopkit": hopkit.__file__, "llm": LLM_NAME,
              "store": str(args.store.resolve()), "limit": args.limit}
    print(json.dumps(header, indent=1), flush=True)
    saved = [read_saved(path) for path in sorted(RUNS.glob("*.jsonl.gz"))]
    earlier = json.loads(args.out.read_text())["rows"] if args.out.exists() else []
    cells = [(m, d) for m in args.methods for d in args.datasets if (m, d) not in SKIPPED]
    rows: list[dict[str, Any]] = [r for r in earlier if (r["method"], r["dataset"]) not in cells]
    for method, dataset in cells:
        ingest(store, dataset)  # stores the pooled corpus once; restores nothing outside the bench store
        llm = load_llm(LLM_NAME)  # a fresh model, and so an empty prompt cache, for every cell
        pipeline = pipeline_for(method, dataset, session_factory, llm, llm_name=LLM_NAME)
        rows.append(compare(method, dataset, store, pipeline, args.limit, saved, against))
        print(table(rows[-1:]).splitlines()[-1], f"[{rows[-1]['seconds']} s, {rows[-1]['match']}]", flush=True)
        args.out.write_text(json.dumps({**header, "rows": rows}, indent=1, ensure_ascii=False) + "\n")
        del pipeline, llm
    print("\n" + table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
