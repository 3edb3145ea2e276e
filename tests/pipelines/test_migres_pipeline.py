"""The MIGRES facade and its YAML config: options checked, the run's identity, a stored run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hopkit.pipelines.configs import instantiate_pipeline_config
from hopkit.config import load_yaml
from hopkit.errors import ConfigError
from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.migres.method import MIGRESConfig
from hopkit.pipelines.generation.migres import MIGRESGenerationPipeline, MIGRESGenerationPipelineConfig
from hopkit.pipelines.retrieval.bm25 import BM25RetrievalPipeline
from hopkit.methods.migres import prompts
from hopkit.records import Corpus, Paragraph, Query
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store
from hopkit.traces import Trace

pytestmark = pytest.mark.unit

PACKAGED = Path(__file__).resolve().parents[2] / "src" / "hopkit" / "configs"
PARAGRAPHS = (Paragraph(0, "Ada Quill", "Ada Quill was an engineer born in Tarsk."),
              Paragraph(1, "Lumen Bridge", "The Lumen Bridge crosses the river at Tarsk."))
QUERIES = (Query("q1", "Where was Ada Quill born?", ("Tarsk",)),)
ANSWER = '{"answer": {"text": "Tarsk", "confidence": 5}, "explanation": "e", "missing_information": ""}'
LEAF = '{"useful_information": [{"info": "Ada Quill was born in Tarsk", "support_passages": [0]}]}'


def script(prompt: str) -> str:
    return LEAF if prompt.startswith(prompts.LEAF_INSTRUCTION) else ANSWER


def scripted_llm() -> ScriptedLLM:
    # the LLM judges read log P(" yes") - log P(" no") = 5: every passage relevant, every fact entailed
    return ScriptedLLM(script, scores={" yes": 0.0, " no": -5.0})


@pytest.fixture
def factory(tmp_path: Path) -> Any:
    factory = DBConnection(f"sqlite:///{tmp_path / 'db.sqlite'}").get_session_factory()
    Store(factory).add_corpus(Corpus("toy", PARAGRAPHS, QUERIES))
    return factory


def bm25(factory: Any, tmp_path: Path, **options: Any) -> BM25RetrievalPipeline:
    return BM25RetrievalPipeline(factory, "bm25-migres", index_root=tmp_path / "idx", **{"k1": 0.9, "b": 0.4,
                                                                                          **options})


def test_a_run_stores_the_answer_and_a_typed_trace(factory: Any, tmp_path: Path) -> None:
    pipeline = MIGRESGenerationPipeline(factory, "migres", scripted_llm(), bm25(factory, tmp_path),
                                        hits_per_query=2, max_iterations=2)
    outcome = pipeline.run(progress=False)
    assert (outcome["finished"], outcome["failed"]) == (1, 0)
    [result] = Store(factory).results(outcome["run_id"])
    assert result.prediction == "Tarsk" and result.chunk_ids == (0,)
    assert result.trace["iterations"] == 1 and "llm_calls" not in result.trace
    trace = Trace.from_result_trace(result.trace)
    assert [s.kind for s in trace.steps] == ["retrieve", "extract", "verify", "read"]
    spent = {name: entry.llm_calls for name, entry in result.usage.components.items()}
    assert (spent["migres:leaf"], spent["migres:main"]) == (1, 1)  # each module's model calls under its label
    assert spent["judge:relevance"] > 0 and spent["judge:entailment"] > 0  # the LLM judges' scoring calls apart
    assert result.usage.llm_calls == sum(spent.values()) and "model" not in spent
    assert pipeline._generate("Where was Ada Quill born?").text == "Tarsk"


def test_every_option_and_the_bm25_parameters_enter_the_runs_identity(factory: Any, tmp_path: Path) -> None:
    def run_id(retrieval: BM25RetrievalPipeline | None = None, **options: Any) -> str:
        return MIGRESGenerationPipeline(factory, "migres", scripted_llm(), retrieval or bm25(factory, tmp_path),
                                        **options).run_spec().run_id

    base = run_id()
    assert run_id() == base
    assert run_id(relevance_threshold=1.0) != base
    assert run_id(knowledge_prompting=False) != base
    assert run_id(reranker={"kind": "cross-encoder", "model": "m"}) != base
    assert run_id(bm25(factory, tmp_path, b=0.75)) != base
    assert run_id(batch_size=3) == base


def test_rerank_top_enters_the_runs_identity_only_when_set(factory: Any, tmp_path: Path) -> None:
    """Runs made before the option existed keep their ids: at its default it is left out."""
    def spec(**options: Any) -> Any:
        return MIGRESGenerationPipeline(factory, "migres", scripted_llm(), bm25(factory, tmp_path),
                                        **options).run_spec()

    base = spec()
    assert "rerank_top" not in json.dumps(base.config)
    assert spec(rerank_top=None).run_id == base.run_id
    capped = spec(rerank_top=10)
    assert capped.run_id != base.run_id and '"rerank_top": 10' in json.dumps(capped.config)
    assert spec(rerank_top=20).run_id not in (base.run_id, capped.run_id)


def test_options_are_checked_with_the_option_named() -> None:
    with pytest.raises(ConfigError, match="'max_new_queries'.*an integer >= 1"):
        MIGRESConfig(max_new_queries=0)
    with pytest.raises(ConfigError, match="'reranker'.*kind"):
        MIGRESConfig(reranker={"kind": "bert"})
    with pytest.raises(ConfigError, match="'nli'.*unknown field 'colour'"):
        MIGRESConfig(nli={"kind": "llm", "colour": "red"})
    with pytest.raises(ConfigError, match="MIGRES: unknown option"):
        MIGRESGenerationPipeline(None, "m", "smollm2", None, iterations=3)  # type: ignore[arg-type]


@pytest.mark.parametrize(("line", "pattern"), [
    ("relevance_threshold: high", r"field 'relevance_threshold': expected a number"),
    ("max_iterations: 0", r"field 'max_iterations': expected an integer >= 1"),
    ("answer_format: bool", r"'answer_format'.*'span', 'yes_no'"),
    ("demonstration_set: hotpotqa", r"'demonstration_set'.*'multihop'"),
    ("reranker: {kind: bert}", r"'reranker'.*field 'kind'"),
    ("rerank_top: 0", r"field 'rerank_top': expected an integer >= 1 or null"),
])
def test_the_yaml_config_checks_its_options(tmp_path: Path, line: str, pattern: str) -> None:
    path = tmp_path / "m.yaml"
    path.write_text(f"_target_: hopkit.pipelines.generation.migres.MIGRESGenerationPipelineConfig\nname: m\n{line}\n",
                    encoding="utf-8")
    with pytest.raises(ConfigError, match=pattern):
        instantiate_pipeline_config(load_yaml(path), str(path))


@pytest.mark.parametrize("name", ["migres", "migres-fewshot"])
def test_the_packaged_configs_build_the_pipeline_on_the_papers_bm25(name: str, factory: Any, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOPKIT_HOME", str(tmp_path))
    path = PACKAGED / "pipelines" / f"{name}.yaml"
    config = instantiate_pipeline_config({**load_yaml(path), "dataset": "hotpotqa"}, str(path))
    assert isinstance(config, MIGRESGenerationPipelineConfig)
    pipeline = config.build(factory)
    assert isinstance(pipeline, MIGRESGenerationPipeline)
    assert pipeline.config.max_iterations == 5 and pipeline.config.relevance_threshold == 3.0
    assert pipeline.config.few_shot is (name == "migres-fewshot")
    assert pipeline.retrieval_pipeline is not None
    assert pipeline.retrieval_pipeline.options == {"k1": 0.9, "b": 0.4}


def test_a_delta_never_calibrated_for_the_llm_judge_is_warned_of_before_the_run() -> None:
    """Issue 30: the paper's δ=3.0 is a BGE-reranker logit; with the LLM judge it keeps almost no passage,
    so a run with it warns and names the command that measures δ for the judge."""
    def warnings(**options: object) -> list[str]:
        return MIGRESGenerationPipeline(None, "x", ScriptedLLM([]), object(), **options).run_warnings()

    [warning] = warnings()
    assert "relevance_threshold (δ) is 3" in warning and "hopkit calibrate migres --dataset DATASET" in warning
    assert warnings(relevance_threshold=1.09) == []
    assert warnings(reranker={"kind": "cross-encoder", "model": "BAAI/bge-reranker-large"}) == []
