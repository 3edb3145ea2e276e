"""The QA benchmark's variants (``src/hopkit/campaign/variants/*.yaml``) build and keep their run ids.

``variant_run_ids.json`` holds the run id of every variant on every sample, as the Python
``pipeline_for`` of f5eef5c gave them before the variants became YAML files; the saved runs
(``benchmarks/results/runs``) carry these ids, so a changed id would orphan them. No model is
loaded: the run id records the model's id and context length only.
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pytest

from hopkit.pipelines.configs import instantiate_pipeline_config
from hopkit.campaign.saved_run_ids import QwenStandIn, stand_in_models  # the model as a run id records it
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store

pytestmark = pytest.mark.unit

RECORDED: dict[str, str] = json.loads((Path(__file__).parent / "variant_run_ids.json").read_text(encoding="utf-8"))
DATASETS = ("hotpotqa", "2wikimultihopqa", "musique", "strategyqa")
#: Saved SearChain runs made before SearChain's options changed: no variant gives their ids any more.
OLD_SEARCHAIN_RUNS = {"232919713e8fbcaf", "56d6c35ac6183c5f", "66fc3cb140d4ef0d", "d92ce36c00474329"}
needs_samples = pytest.mark.skipif(not os.environ.get("HOPKIT_DATA_DIR"),
                                   reason="HOPKIT_DATA_DIR is not set: the run ids depend on the samples' corpora")


@pytest.fixture(scope="module")
def pipelines(load_benchmark: Callable[[str], ModuleType]) -> ModuleType:
    return load_benchmark("qa_pipelines")


@pytest.fixture(scope="module")
def sample_store(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A store holding the four samples' pooled corpora, as qa_bench ingests them."""
    from hopkit.data.corpus import pool_corpus
    from hopkit.data.registry import load_dataset, sample_path

    path = tmp_path_factory.mktemp("variants") / "hopkit.db"
    session_factory = DBConnection(f"sqlite:///{path}").get_session_factory()
    store = Store(session_factory)
    for dataset in DATASETS:
        store.add_corpus(pool_corpus(dataset, load_dataset(dataset, sample_path(dataset))))
    return session_factory


def saved_run_ids() -> set[str]:
    """The saved runs of the QA campaign (not those of the field's setting in miniature, on datasets of their
    own: ``hopkit campaign reproduce-miniature``)."""
    from hopkit.campaign.environment import RUNS
    from hopkit.campaign.setting_miniature import DATASETS as MINIATURE, stored_name

    miniature = {stored_name(dataset) for dataset in MINIATURE}
    ids = set()
    for path in RUNS.glob("*.jsonl.gz"):
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            run = next(json.loads(line)["run"] for line in lines if line.startswith('{"run"'))
        if run["dataset"] not in miniature:
            ids.add(run["run_id"])
    return ids


def test_every_variant_and_sample_has_a_recorded_run_id(pipelines: ModuleType) -> None:
    cells = {f"{m}/{d}" for m in pipelines.METHODS for d in DATASETS if (m, d) not in pipelines.SKIPPED}
    assert cells == set(RECORDED)


@needs_samples
@pytest.mark.parametrize("cell", sorted(RECORDED))
def test_the_variant_gives_its_recorded_run_id(pipelines: ModuleType, sample_store: Any, cell: str) -> None:
    variant, dataset = cell.split("/")
    from hopkit.campaign.saved_run_ids import stand_in_pipeline

    assert stand_in_pipeline(variant, dataset, sample_store).run_spec().run_id == RECORDED[cell]


def test_every_saved_run_is_a_variant_but_the_old_searchain_runs_and_the_retired_ones() -> None:
    from hopkit.campaign.retired_runs import retired_run_ids

    saved = saved_run_ids()
    assert retired_run_ids() <= saved  # the notebook's sections still read them
    old = OLD_SEARCHAIN_RUNS | retired_run_ids()
    assert OLD_SEARCHAIN_RUNS <= saved
    assert saved - old <= set(RECORDED.values())
    assert not old & set(RECORDED.values())


def test_ircot_is_not_run_on_strategyqa_and_every_variant_says_what_it_is(pipelines: ModuleType) -> None:
    ircot = {m for m in pipelines.METHODS if m.startswith("ircot")}
    # nor Yao et al.'s ReAct (HotpotQA trajectories), nor OneR on the dense retrievers (the retrieval comparison
    # runs on the multi-hop samples); ITER-RETGEN reads the StrategyQA set made from annotated questions, FLARE
    # the authors' StrategyQA exemplars
    # nor the 2025 methods whose papers have no StrategyQA (Adaptive-RAG's multi-step strategy is IRCoT); DRAGIN
    # and its plain-case lever read the authors' StrategyQA exemplars (not on the dense retriever)
    assert {m for m, d in pipelines.SKIPPED if d == "strategyqa"} == ircot | {
        "react", "oner-minilm", "oner-hybrid-minilm", "search-o1", "search-r1", "r1-searcher", "autorefine",
        "adaptive-rag", "adaptive-rag-trained", "search-o1-minilm", "search-r1-minilm", "r1-searcher-minilm",
        "autorefine-minilm", "adaptive-rag-minilm", "dragin-plain-case-minilm"}
    dragin = pipelines.load_variant("dragin", "strategyqa")
    assert (dragin.config["threshold"], dragin.config["shots"], dragin.config["exemplars"]) == (0.75, 6, "strategyqa")
    plain = pipelines.load_variant("dragin-plain-case", "strategyqa")
    assert (plain.config["case"], plain.config["exemplars"], plain.config["threshold"]) == ("plain", "strategyqa", 0.75)
    flare = pipelines.load_variant("flare", "strategyqa")
    assert (flare.config["k"], flare.config["theta"], flare.config["shots"]) == (3, 0.4, 6)
    assert all(pipelines.load_variant(m, "hotpotqa").description != m for m in pipelines.METHODS)
    with pytest.raises(SystemExit, match="not run on strategyqa"):
        pipelines.pipeline_for("ircot", "strategyqa", None, QwenStandIn([]))


def test_a_derived_variant_starts_from_its_base_and_takes_the_datasets_overrides(pipelines: ModuleType) -> None:
    base, k15 = pipelines.load_variant("oner", "strategyqa"), pipelines.load_variant("oner-k15", "strategyqa")
    assert (base.config["k"], k15.config["k"]) == (5, 15)
    assert k15.config["reader"] == base.config["reader"] and k15.config["reader"]["max_tokens"] == 8
    assert k15.config["demonstrations"] is None and k15.config["name"] == "oner-k15-strategyqa"
    assert pipelines.load_variant("oner-k15", "musique").config["demonstrations"]["dataset"] == "musique"
    assert pipelines.load_variant("ircot-cot", "musique").config["name"] == "ircot-musique"
    migres = pipelines.load_variant("migres-fewshot", "strategyqa")
    assert (migres.calibrated.task, migres.config["answer_format"], migres.config["few_shot"]) == \
           ("strategyqa", "yes_no", True)


@needs_samples
@pytest.mark.parametrize("cell", sorted(RECORDED))
def test_the_printed_config_runs_the_variant_under_hopkit_run(pipelines: ModuleType, sample_store: Any, cell: str,
                                                             tmp_path: Path) -> None:
    """``hopkit campaign variant VARIANT DATASET`` prints a file ``hopkit run`` builds into the same
    method, options and retrieval (the run id differs only by how the model is named: a config, not a file)."""
    import yaml

    from hopkit.cli.run import pipeline_config

    variant, dataset = cell.split("/")
    path = tmp_path / "variant.yaml"
    path.write_text(yaml.safe_dump(pipelines.hopkit_config(variant, dataset)), encoding="utf-8")
    spec, source = pipeline_config(str(path))
    printed = instantiate_pipeline_config(spec, source).build(sample_store).run_spec()
    benchmark = pipelines.pipeline_for(variant, dataset, sample_store, QwenStandIn([], context_length=4096),
                                       llm_name="qwen2.5-coder-1.5b-4k").run_spec()
    assert (printed.name, printed.method, printed.dataset) == (benchmark.name, benchmark.method, benchmark.dataset)
    assert {k: v for k, v in printed.config.items() if k != "llm"} == \
           {k: v for k, v in benchmark.config.items() if k != "llm"}
    assert printed.config["llm"]["config"] == "qwen2.5-coder-1.5b-4k"


SHIPPED = Path(__file__).resolve().parents[2] / "src" / "hopkit" / "configs" / "pipelines"
EXPERIMENT_CONFIGS = sorted(path for path in SHIPPED.glob("*.yaml") if "experiment" in path.read_text(encoding="utf-8"))


def test_the_shipped_paper_configs_name_their_experiments() -> None:
    named = {path.stem for path in EXPERIMENT_CONFIGS}
    assert named >= {"flare", "iter-retgen", "self-ask", "react", "react-shao", "searchain", "migres",
                     "migres-fewshot", "ircot-fewshot", "alce-vanilla", "alce-vanilla-s", "alce-summ",
                     "alce-snippet", "alce-rerank"}


@needs_samples
@pytest.mark.parametrize("path", EXPERIMENT_CONFIGS, ids=lambda path: path.stem)
def test_a_shipped_config_gives_its_benchmark_variants_run_id_on_each_dataset(
        pipelines: ModuleType, sample_store: Any, path: Path) -> None:
    """The shipped config, run with the benchmark's model, its calibrated thresholds and its recorded departures
    (``src/hopkit/campaign/variants``), is the benchmark's run: the same run id, so no setting is kept in two places."""
    from hopkit.config import load_yaml
    from hopkit.pipelines.experiments import load_experiment

    shipped = load_yaml(path)
    name, checked = shipped["experiment"], 0
    for dataset in DATASETS:
        if load_experiment(name, dataset).skipped is not None:
            continue
        declared, benchmark = load_experiment(name, dataset).config, pipelines.hopkit_config(name, dataset)
        departures = {k: v for k, v in benchmark.items() if k not in ("name", "llm") and declared.get(k) != v}
        config = instantiate_pipeline_config({**shipped, "dataset": dataset, **departures}, str(path))
        pipeline = config.build(sample_store)
        models = stand_in_models()
        pipeline.llm = models.model(models.name_for(name, dataset))  # DRAGIN's: the transformers twin
        assert pipeline.run_spec().run_id == RECORDED[f"{name}/{dataset}"], (dataset, departures)
        checked += 1
    assert checked
