"""The pages a reader of the benchmark results starts from, rebuilt from the saved runs:
``docs/leaderboard.md`` (every method's declared experiment on each sample, ranked) and
``docs/claims/METHOD.md`` (each method's paper claims, checked on those runs; a page also checks the
variants :data:`ALSO_CHECKED` names and says where the routers of :data:`ROUTED` sent their questions).

The runs are the saved runs (``benchmarks/results/runs``) of each benchmark variant on each sample:
the declared experiments (:mod:`hopkit.pipelines.experiments`, a paper's settings) and the benchmark's own levers
and retrievers (``src/hopkit/campaign/variants``), each row named by its variant; the pages are made by the
package's own code (:mod:`hopkit.report.leaderboard`, :mod:`hopkit.claim_checks`).
``tests/benchmarks/test_reader_pages.py`` rebuilds them and fails on any difference::

    HOPKIT_DATA_DIR=../shared/data .venv/bin/hopkit campaign pages [--write]
"""

from __future__ import annotations

import argparse
import difflib
import tempfile
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from hopkit.campaign.environment import ROOT, use_home
from hopkit.campaign.qa_pipelines import SKIPPED
from hopkit.campaign.qa_sections import SAMPLES, restored_store
from hopkit.campaign.saved_run_ids import stand_in_pipeline
from hopkit.campaign.variants import variant_names
from hopkit.claim_checks import ClaimChecker, claim_pages
from hopkit.judging_runs import choose_judge
from hopkit.methods.adaptive_rag.steps import AdaptiveRAGSummary
from hopkit.methods.registry import method_entry
from hopkit.report.claims import claims_markdown
from hopkit.report.leaderboard import leaderboard, run_setup
from hopkit.report.published_rows import store_references
from hopkit.scoring_runs import score_runs
from hopkit.store.store import Store
from hopkit.store.verdicts import VerdictStore

DOCS = ROOT / "docs"
INTRO = ("Every method on the first 30 questions of each sample, with Qwen2.5-Coder-1.5B: each row a variant "
         "the benchmark ran and saved, named as in `docs/notebook.md`: a paper's settings (the method's declared "
         "experiment, `hopkit/methods/*/experiments.yaml`: `migres`, `searchain-no-verification`...) or one of the "
         "benchmark's levers and retrievers (`src/hopkit/campaign/variants/`: `ircot-reasoning-reader`, "
         "`oner-minilm`...). Rebuilt from the saved runs (`benchmarks/results/runs`) by "
         "`HOPKIT_DATA_DIR=../shared/data .venv/bin/hopkit campaign pages --write`, and checked by "
         "`tests/benchmarks/test_reader_pages.py`.")
#: The benchmark's variants a page checks beside its claims' subject, against the same baselines (each row named
#: by the variant), and why.
ALSO_CHECKED = {"adaptive-rag": {
    "adaptive-rag-trained": "the paper's Adaptive-RAG routes with a classifier trained on silver labels, as "
                            "`adaptive-rag-trained` does (`hopkit campaign train-router`); `adaptive-rag`, the "
                            "declared experiment, routes with the prompted classifier"}}
#: The routed variants whose routes a page counts from their runs' traces (where each question went).
ROUTED = {"adaptive-rag": ("adaptive-rag", "adaptive-rag-trained")}


def variant_runs(session_factory: Any) -> dict[tuple[str, str], str]:
    """(variant, sample) to the saved run's id, for every variant the store holds a run of (each built on the
    stand-in of the model it answers with: DRAGIN's the transformers twin)."""
    held = {run.run_id for run in Store(session_factory).runs()}
    found = {}
    for name in variant_names():
        for dataset in SAMPLES:
            if (name, dataset) in SKIPPED:
                continue
            run_id = stand_in_pipeline(name, dataset, session_factory).run_spec().run_id
            if run_id in held:
                found[name, dataset] = run_id
    return found


def routes(store: Store, runs_of: dict[tuple[str, str], str], variant: str) -> str | None:
    """Where ``variant``'s saved runs on the samples sent their questions, counted from each answer's summary
    (:class:`~hopkit.methods.adaptive_rag.steps.AdaptiveRAGSummary`); None when it has no run."""
    runs = [(dataset, runs_of[variant, dataset]) for dataset in SAMPLES if (variant, dataset) in runs_of]
    if not runs:
        return None
    went: Counter[str] = Counter()
    classifiers: set[str] = set()
    for _, run_id in runs:
        for result in store.results(run_id):
            if not result.ok:
                went["a failure"] += 1
                continue
            summary = AdaptiveRAGSummary.from_result_trace(result.trace)
            went[method_entry(summary.strategy).title] += 1
            classifiers.add(summary.classifier)
    total = sum(went.values())
    by = " and ".join("the prompted classifier" if c == "prompted" else f"the trained classifier `{c}`"
                      for c in sorted(classifiers))
    names = [dataset for dataset, _ in runs]
    samples = f"{', '.join(names[:-1])} and {names[-1]}" if len(names) > 1 else names[0]
    if len(went) == 1:
        return f"Routes: `{variant}` ({by}) sent all {total} questions of {samples} to {next(iter(went))}."
    where = [f"{count} to {strategy}" for strategy, count in went.most_common()]
    return (f"Routes: `{variant}` ({by}) sent the {total} questions of {samples}: {', '.join(where[:-1])} and "
            f"{where[-1]}.")


def pages(session_factory: Any) -> dict[Path, str]:
    """The leaderboard and each method's claims page, as they are built from the store's runs."""
    store, verdicts = Store(session_factory), VerdictStore(session_factory)
    runs_of = variant_runs(session_factory)
    variant_of = {run_id: name for (name, _), run_id in runs_of.items()}
    runs = [run for run in store.runs() if run.run_id in variant_of]
    judge = choose_judge(verdicts, [run.run_id for run in runs])
    summaries = [replace(summary, name=variant_of[summary.run_id])
                 for summary in score_runs(store, runs, verdicts=verdicts, judge=judge)]
    built: dict[Path, str] = {}
    claimed = claim_pages()
    for name, claims in claimed.items():
        checker = ClaimChecker(store, verdicts, None if judge is None else judge.model_id, runs_of)
        also = ALSO_CHECKED.get(name, {})
        checks = checker.check([*claims, *(replace(claim, subject=variant) for variant in also for claim in claims)],
                               SAMPLES)
        facts = [f"The `{variant}` rows check the same claims on that variant's runs: {why}." for variant, why
                 in also.items() if any(check.claim.subject == variant for check in checks)]
        facts += [line for variant in ROUTED.get(name, ()) if (line := routes(store, runs_of, variant))]
        built[DOCS / "claims" / f"{name}.md"] = claims_markdown(name, checks, checker.absent, facts)
    links = {s.method: page for s in summaries for page in (f"methods/{s.method}.md", f"{s.method}.md")
             if (DOCS / page).exists()}
    claims_line = ("The paired claims of each paper, checked on these runs by `hopkit claims`: "
                   + ", ".join(f"[{name}](claims/{name}.md)" for name in claimed) + ".")
    page = leaderboard(summaries, {s.run_id: run_setup(store.run(s.run_id).config) for s in summaries}, links,
                       claims=[claims_line], references=store_references(summaries, store))
    built[DOCS / "leaderboard.md"] = page.replace("# Leaderboard\n\n", f"# Leaderboard\n\n{INTRO}\n\n", 1)
    return built


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write the pages that differ")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        use_home(Path(scratch))
        built = pages(restored_store(Path(scratch) / "hopkit.db"))
    differing = 0
    for path, text in built.items():
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        if old == text:
            print(f"{path.relative_to(ROOT)}: same")
            continue
        differing += 1
        print(f"{path.relative_to(ROOT)}: DIFFERENT")
        print("\n".join(difflib.unified_diff(old.splitlines(), text.splitlines(), "page", "rebuilt", lineterm="",
                                             n=0)))
        if args.write:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    return 1 if differing and not args.write else 0


if __name__ == "__main__":
    raise SystemExit(main())
