"""Whether the code still gives each saved run its run id: a refactor's check that needs no model.

For every export file in ``benchmarks/results/runs/``, the benchmark variants whose runs carry
that run's name (:mod:`hopkit.campaign.variants`, built by qa_pipelines' ``pipeline_for``)
are rebuilt on a stand-in for the Qwen model (its model id and context only; nothing is
generated) and their run ids compared with the saved one. The store must hold the samples as
qa_bench ingests them (the bench store, or answers_unchanged's scratch store).

    HOPKIT_DATA_DIR=../shared/data .venv/bin/hopkit campaign run-ids --store .hopkit-bench/hopkit.db
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path
from typing import Any

from hopkit.campaign.environment import LLM_NAME, RUNS
from hopkit.campaign.method_models import TWINS, MethodModels
from hopkit.campaign.qa_bench import METHODS
from hopkit.campaign.retired_runs import section_run_id
from hopkit.llm.fake import ScriptedLLM
from hopkit.store.connection import DBConnection


class QwenStandIn(ScriptedLLM):
    """What a run id records of the benchmark's model: its id and context length."""

    model_id = "qwen2.5-coder-1.5b-instruct-q4_k_m"


class QwenTransformersStandIn(ScriptedLLM):
    """The same for its transformers twin (``qwen2.5-coder-1.5b-transformers``), which DRAGIN's runs answer with;
    it has the attention capability, as the twin does."""

    model_id = "qwen2.5-coder-1.5b-instruct-q4_k_m@transformers"


def stand_in_model(name: str) -> ScriptedLLM:
    """The stand-in of the campaign's model config ``name``: the Qwen model, or its transformers twin."""
    if name == TWINS[LLM_NAME]:
        return QwenTransformersStandIn([], context_length=4096, entropies=0.0)
    return QwenStandIn([], context_length=4096, token_scores=0.0)  # llama.cpp scores tokens (FLARE)


def answered_run_id(variant: str, dataset: str, factory: Any, llm: Any, llm_name: str) -> str:
    """The id of ``variant``'s run on ``dataset`` answered by ``llm`` (the config ``llm_name``), or, for a method
    that needs what ``llm`` lacks (DRAGIN's attention), by its transformers twin, named by the twin's stand-in;
    while a notebook section is rebuilt, the run it reported (:mod:`hopkit.campaign.retired_runs`)."""
    models = MethodModels(llm_name, lambda name: llm if name == llm_name else stand_in_model(name))
    return section_run_id(variant, dataset, models.pipeline(variant, dataset, factory).run_spec().run_id)


def stand_in_models() -> MethodModels:
    """The campaign's models for each variant, as stand-ins: nothing is loaded or generated."""
    return MethodModels(LLM_NAME, stand_in_model)


def stand_in_pipeline(variant: str, dataset: str, factory: Any, **options: Any) -> Any:
    """Variant ``variant``'s pipeline on ``dataset``, built on the stand-in of the model it answers with."""
    return stand_in_models().pipeline(variant, dataset, factory, **options)


def saved_header(path: Path) -> dict[str, Any]:
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return next(json.loads(line)["run"] for line in lines if line.startswith('{"run"'))


def candidates(run: dict[str, Any]) -> list[str]:
    """The benchmark variants whose runs carry this run's name (``ircot-hotpotqa`` is any IRCoT variant)."""
    stem = run["name"].removesuffix("-" + run["dataset"])
    return [m for m in METHODS if m == stem or (m.startswith(stem + "-") and stem == run["method"])]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, required=True)
    args = parser.parse_args(argv)
    factory = DBConnection(f"sqlite:///{args.store.resolve()}").get_session_factory()
    unmatched = 0
    for path in sorted(RUNS.glob("*.jsonl.gz")):
        run = saved_header(path)
        found = [m for m in candidates(run)
                 if stand_in_pipeline(m, run["dataset"], factory).run_spec().run_id == run["run_id"]]
        unmatched += not found
        print(f"{run['run_id']}  {run['name']:45} {'same id: ' + ', '.join(found) if found else 'NO VARIANT GIVES THIS ID'}")
    print(f"{unmatched} saved run(s) whose id no current variant gives")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
