"""The documented IRCoT facade: options, the ``top_k`` alias, a run over a stored dataset."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest

from hopkit.config import instantiate
from hopkit.options import run_options
from hopkit.errors import ConfigError
from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.ircot.method import IRCoT, IRCoTConfig
from hopkit.pipelines.generation.config import DemonstrationSpec
from hopkit.methods.ircot import FLAN_COT_PREFIX, FLAN_DIRECT_PREFIX
from hopkit.pipelines.generation.ircot import IRCoTGenerationPipeline, IRCoTGenerationPipelineConfig
from hopkit.pipelines.retrieval.base import RetrievalPipeline
from hopkit.records import Corpus, Paragraph, Query
from hopkit.store.connection import DBConnection
from hopkit.store.store import Store

pytestmark = pytest.mark.unit


class FakeRetrievalPipeline(RetrievalPipeline):
    """Serves a recording in-memory retriever instead of building an index."""

    def __init__(self, session_factory, retriever) -> None:
        super().__init__(session_factory, "fake")
        self.fake = retriever

    def retriever(self, dataset=None):
        return self.fake

    def spec(self, dataset):
        return {"kind": "fake"}


def answer_script(prompt: str) -> str:
    """Titles when asked; then one fact; then the answer (works for zero-shot and few-shot prompts)."""
    if "Generate titles" in prompt:
        return '["Mack Rides"]'
    if "Mack Rides is a German company." in prompt:
        return "So the answer is: Germany."
    return "Mack Rides is a German company."


def store_with(tmp_path: Path, name: str, paragraphs, queries):
    factory = DBConnection(f"sqlite:///{tmp_path / 'db.sqlite'}").get_session_factory()
    store = Store(factory)
    store.add_corpus(Corpus(name, tuple(paragraphs), tuple(queries)))
    return store, factory


def test_top_k_is_an_alias_of_k_per_step_in_the_constructor() -> None:
    pipeline = IRCoTGenerationPipeline(None, "x", ScriptedLLM([]), None, k_per_step=2, top_k=6)
    assert pipeline.config.k_per_step == 6
    assert IRCoTGenerationPipeline(None, "x", ScriptedLLM([]), None, k_per_step=2).config.k_per_step == 2


def test_top_k_given_to_run_reaches_the_retriever(kit) -> None:
    retriever = kit.RecordingRetriever(kit.CORPUS)
    pipeline = IRCoTGenerationPipeline(None, "x", ScriptedLLM([]), None, title_matching=False, reader="none")
    method = pipeline.build_method(ScriptedLLM(["Mack Rides is German.", "So the answer is: Germany."]),
                                   retriever, top_k=1)
    assert isinstance(method, IRCoT) and method.config.k_per_step == 1
    method.generate(kit.QUESTION)
    assert {c.k for c in retriever.calls} == {1}
    assert pipeline.method_options(1)["k_per_step"] == 1
    assert pipeline.method_options(None)["k_per_step"] == 4


def test_run_over_a_stored_dataset_with_top_k(kit, tmp_path: Path) -> None:
    store, factory = store_with(tmp_path, "toy", kit.CORPUS, [kit.QUESTION])
    retriever = kit.RecordingRetriever(kit.CORPUS)
    pipeline = IRCoTGenerationPipeline(factory, "ircot-test", ScriptedLLM(answer_script),
                                       FakeRetrievalPipeline(factory, retriever), reader="none")
    outcome = pipeline.run(top_k=2, progress=False)
    assert (outcome["total_queries"], outcome["finished"], outcome["failed"]) == (1, 1, 0)
    [result] = store.results(outcome["run_id"])
    assert result.prediction == "Germany"
    assert {c.k for c in retriever.calls} == {2}
    assert pipeline.run_spec(top_k=2).config["method"]["k_per_step"] == 2
    assert pipeline.run_spec(top_k=3).config != pipeline.run_spec(top_k=2).config


def test_iirc_dataset_gets_the_title_step_automatically(kit, tmp_path: Path) -> None:
    main = Paragraph(20, "Lost Gravity", "Lost Gravity is a roller coaster built by Mack Rides.")
    query = Query(id="i1", text="In what country is the maker of Lost Gravity?", main_passage=main)
    store, factory = store_with(tmp_path, "iirc", [*kit.CORPUS, main], [query])
    retriever = kit.RecordingRetriever(kit.CORPUS)
    llm = ScriptedLLM(answer_script)
    pipeline = IRCoTGenerationPipeline(factory, "ircot-iirc", llm,
                                       FakeRetrievalPipeline(factory, retriever), reader="none")
    outcome = pipeline.run(progress=False)
    assert outcome["failed"] == 0
    assert "Generate titles of 3 Wikipedia pages" in llm.prompts[0]
    assert all(c.titles == frozenset({"Mack Rides"}) for c in retriever.calls)


def test_yaml_config_with_the_documented_options() -> None:
    config = instantiate({"_target_": "hopkit.pipelines.generation.ircot.IRCoTGenerationPipelineConfig",
                          "name": "ircot", "retrieval_pipeline_name": "bm25", "llm": "smollm2",
                          "k_per_step": 4, "max_steps": 8, "paragraph_budget": 15, "stop_sequence": "answer is:",
                          "top_k": 6, "reader": "direct", "iirc": {"title_count": 2}}, "inline")
    assert isinstance(config, IRCoTGenerationPipelineConfig)
    pipeline = config.build(DBConnection("sqlite://").get_session_factory())
    assert pipeline.config.k_per_step == 6
    assert pipeline.config.reader == "direct"
    assert pipeline.config.iirc.title_count == 2


def test_unknown_options_are_named() -> None:
    with pytest.raises(ConfigError, match="kk_per_step"):
        IRCoTGenerationPipeline(None, "x", ScriptedLLM([]), None, kk_per_step=3)
    with pytest.raises(ConfigError, match="iirc"):
        IRCoTGenerationPipeline(None, "x", ScriptedLLM([]), None, iirc={"titles": 3})


def test_flan_family_sets_the_flan_question_prefixes() -> None:
    spec = DemonstrationSpec(dataset="hotpotqa", distractors=1, family="flan_t5")
    pipeline = IRCoTGenerationPipeline(None, "x", ScriptedLLM([]), None, demonstrations=spec, reader="direct")
    config = pipeline.options(None)
    assert config.question_prefix == FLAN_COT_PREFIX
    assert config.reader_question_prefix == FLAN_DIRECT_PREFIX
    assert config.iirc.question_prefix == FLAN_DIRECT_PREFIX
    codex = IRCoTGenerationPipeline(None, "x", ScriptedLLM([]), None, demonstrations=DemonstrationSpec("hotpotqa"))
    assert codex.options(None).question_prefix == ""


def test_facade_defaults_match_the_method_defaults() -> None:
    method_defaults = IRCoTConfig()
    pipeline = IRCoTGenerationPipeline(None, "x", ScriptedLLM([]), None)
    assert run_options(pipeline.config) == {**run_options(method_defaults), "demonstrations": None,
                                            "title_matching": None}
    yaml_defaults = IRCoTGenerationPipelineConfig(name="x")
    for option in ("k_per_step", "max_steps", "paragraph_budget", "stop_sequence", "reasoning_prompt_template",
                   "qa_prompt_template"):
        assert getattr(yaml_defaults, option) == getattr(method_defaults, option)
    assert {f.name for f in fields(IRCoTConfig)} >= {"k_per_step", "max_steps", "paragraph_budget"}
