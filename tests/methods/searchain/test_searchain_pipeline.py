"""The SearChain facade and its YAML config: options checked, run identity, a run over a stored dataset."""

from __future__ import annotations

from pathlib import Path

import pytest

from hopkit.pipelines.configs import instantiate_pipeline_config
from hopkit.config import load_yaml
from hopkit.errors import ConfigError
from hopkit.judges.embedding import EmbeddingSimilarity
from hopkit.judges.llm_prompts import ANSWER_EXAMPLES
from hopkit.judges.llm_reader import LLMAnswerJudge
from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.searchain.method import SearChain, SearChainConfig
from hopkit.pipelines.generation.searchain import SearChainGenerationPipeline, SearChainGenerationPipelineConfig
from hopkit.pipelines.retrieval.bm25 import BM25RetrievalPipeline
from hopkit.records import Corpus
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store
from hopkit.traces import Trace, collect_trace

pytestmark = pytest.mark.unit

YAML = Path(__file__).resolve().parents[3] / "src" / "hopkit" / "configs" / "pipelines" / "searchain.yaml"


def test_the_named_yaml_config_is_the_papers_setting_for_the_runs_dataset() -> None:
    config = instantiate_pipeline_config({**load_yaml(YAML), "dataset": "hotpotqa"}, str(YAML))
    assert isinstance(config, SearChainGenerationPipelineConfig)
    pipeline = config.build(None)
    assert isinstance(pipeline, SearChainGenerationPipeline)
    assert pipeline.config == SearChainConfig()
    assert (pipeline.config.max_rounds, pipeline.config.top_k, pipeline.config.confidence_threshold,
            pipeline.config.rouge_threshold) == (5, 1, 1.5, 0.35)
    on_strategyqa = instantiate_pipeline_config({**load_yaml(YAML), "dataset": "strategyqa"}, str(YAML))
    assert on_strategyqa.build(None).config == SearChainConfig(task="strategyqa")
    with pytest.raises(ConfigError, match="experiment 'searchain' has its paper's settings per dataset: give the "
                                          "dataset"):
        instantiate_pipeline_config(load_yaml(YAML), str(YAML))


@pytest.mark.parametrize(("line", "pattern"), [
    ("task: trivia", r"'task'.*one of 'multihop', 'strategyqa', 'fact', 'longform'"),
    ("max_rounds: 0", r"'max_rounds'.*an integer >= 1"),
    ("rouge_threshold: 1.5", r"'rouge_threshold'.*<= 1"),
    ("duplicate_threshold: -0.1", r"'duplicate_threshold'.*>= 0"),
    ("verification: maybe", r"'verification'.*true or false"),
    ("reader: oracle", r"'reader'.*'kind' must be one of llm, extractive"),
    ("reader: {kind: extractive}", r"'reader'.*needs the field 'model'"),
    ("duplicate_check: {kind: lexical, measure: cosine}", r"'duplicate_check'.*'measure'"),
    ("entailment: {kind: nli, model: 3}", r"'entailment'.*'model'"),
    ("top_k: 1.0", r"'top_k'.*an integer >= 1"),
])
def test_wrong_options_are_refused_when_the_file_is_read(tmp_path: Path, line: str, pattern: str) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(f"_target_: hopkit.pipelines.generation.searchain.SearChainGenerationPipelineConfig\n"
                    f"name: run\n{line}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=pattern) as error:
        instantiate_pipeline_config(load_yaml(path), str(path))
    assert str(error.value).startswith(f"{path}: ")


def test_python_callers_get_the_same_checks() -> None:
    with pytest.raises(ConfigError, match="'max_rounds'"):
        SearChainGenerationPipeline(None, "x", "smollm2", None, max_rounds=2.5)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="unknown option"):
        SearChainGenerationPipeline(None, "x", "smollm2", None, rounds=3)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="'confidence_threshold'"):
        SearChainConfig(confidence_threshold=float("nan"))


def test_every_option_of_the_run_enters_its_id(kit, tmp_path: Path) -> None:
    factory = DBConnection(f"sqlite:///{tmp_path / 'db.sqlite'}").get_session_factory()
    Store(factory).add_corpus(Corpus("toy", kit.CORPUS, (kit.QUESTION,)))
    bm25 = BM25RetrievalPipeline(factory, index_root=tmp_path / "idx")

    def run_id(**options: object) -> str:
        return SearChainGenerationPipeline(factory, "searchain", ScriptedLLM([]), bm25, **options).run_spec().run_id

    base = run_id()
    assert run_id() == base
    for changed in ({"confidence_threshold": 2.0}, {"verification": False}, {"completion": False},
                    {"task": "longform"}, {"reader": {"kind": "extractive", "model": "m"}},
                    {"duplicate_check": "llm"}, {"top_k": 2}, {"max_rounds": 3}):
        assert run_id(**changed) != base, changed
    assert run_id(batch_size=3) == base
    pipeline = SearChainGenerationPipeline(factory, "searchain", ScriptedLLM([]), bm25)
    assert pipeline.method_options(2)["top_k"] == 2 and pipeline.run_spec(2).run_id != base


def test_the_method_built_by_the_facade_builds_its_judges_on_first_use(kit) -> None:
    pipeline = SearChainGenerationPipeline(None, "x", ScriptedLLM([]), None)
    llm = ScriptedLLM(kit.paper_script, scores={" yes": -0.1, " no": -3.0})
    method = pipeline.build_method(llm, kit.retriever, None)
    assert isinstance(method, SearChain) and method.reader is None  # nothing built in the constructor
    with pytest.raises(ConfigError, match="needs a retrieval pipeline"):
        pipeline.build_method(llm, None, None)


def test_a_run_over_a_stored_dataset_with_the_llm_reader(kit, tmp_path: Path) -> None:
    factory = DBConnection(f"sqlite:///{tmp_path / 'db.sqlite'}").get_session_factory()
    store = Store(factory)
    store.add_corpus(Corpus("toy", kit.CORPUS, (kit.QUESTION,)))

    def script(prompt: str) -> str:
        if prompt.startswith(ANSWER_EXAMPLES):  # the LLM reader's span, after its worked examples
            return " Kevin Drew" if "Spirit" in prompt.split("Question:")[-1] else " Toronto Coach Terminal"
        return kit.paper_script(prompt) if "[Final Content]:" in prompt[-20:] else (
            f" {kit.Q1}\n[Answer 1]: Kevin Drew\n[Final Content]: So the final answer is Toronto Coach Terminal.")

    llm = ScriptedLLM(script, scores={" yes": -0.1, " no": -3.0})
    pipeline = SearChainGenerationPipeline(factory, "searchain-test", llm,
                                           BM25RetrievalPipeline(factory, index_root=tmp_path / "idx"))
    outcome = pipeline.run(progress=False)
    assert (outcome["finished"], outcome["failed"]) == (1, 0)
    [result] = store.results(outcome["run_id"])
    assert result.prediction == "Toronto Coach Terminal"
    assert result.trace["stop_reason"] == "finished" and result.trace["knowledge_sources"]["llm"] == 1
    kinds = [step.kind for step in Trace.from_result_trace(result.trace).steps]
    assert kinds == ["reason", "retrieve", "verify", "read"]
    method = pipeline.build_method(llm, kit.retriever, None)
    with collect_trace():
        method.generate(kit.QUESTION)
    assert isinstance(method.reader, LLMAnswerJudge) and isinstance(method.similarity, EmbeddingSimilarity)
    assert method.reader.judge_id == "llm:scripted+examples"


def test_a_theta_never_calibrated_for_the_reader_is_warned_of_before_the_run() -> None:
    """Issue 30: θ = 1.5 is a logit of the authors' DPR reader, which hopkit does not have; a run with it
    warns and names the command that measures θ for its reader."""
    def warnings(**options: object) -> list[str]:
        return SearChainGenerationPipeline(None, "x", ScriptedLLM([]), object(), **options).run_warnings()

    [warning] = warnings()
    assert "confidence_threshold (θ) is 1.5" in warning and "hopkit calibrate searchain --dataset DATASET" in warning
    assert warnings(confidence_threshold=1.8) == []
    assert warnings(verification=False, completion=False) == []  # the reader is never asked
