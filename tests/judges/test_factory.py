"""Judges by name from config options: checks before anything is loaded, then the build."""

from __future__ import annotations

import math

import pytest

from hopkit.errors import ConfigError
from hopkit.judges import (JudgeSpec, LexicalSimilarity, LLMAnswerJudge, LLMEntailmentJudge, LLMRelevanceJudge,
                           LLMSimilarityJudge, answer_judge, build_judge, entailment_judge, judge_spec,
                           relevance_judge, similarity_judge)
from hopkit.judges.optional import import_optional
from hopkit.llm.fake import ScriptedLLM

pytestmark = pytest.mark.unit

SCORING = ScriptedLLM(["Paris"], scores={" yes": math.log(0.9), " no": math.log(0.1)})


def test_a_kind_alone_or_a_mapping_of_kind_and_options() -> None:
    assert judge_spec("relevance", "llm") == JudgeSpec("relevance", "llm", {})
    spec = judge_spec("relevance", {"kind": "cross-encoder", "model": "cross-encoder/ms-marco-MiniLM-L-6-v2",
                                    "batch_size": 16})
    assert spec == JudgeSpec("relevance", "cross-encoder",
                             {"model": "cross-encoder/ms-marco-MiniLM-L-6-v2", "batch_size": 16})
    assert judge_spec("relevance", spec) is spec
    assert judge_spec("similarity", {"kind": "lexical", "measure": "jaccard"}).options == {"measure": "jaccard"}


@pytest.mark.parametrize("role, value, message", [
    ("relevance", "nli", r"option 'reranker': field 'kind' must be one of llm, cross-encoder, embedding, got 'nli'"),
    ("relevance", 3, r"expected one of llm, cross-encoder, embedding or a mapping"),
    ("relevance", {"kind": "cross-encoder"}, r"kind 'cross-encoder' needs the field 'model'"),
    ("relevance", {"kind": "cross-encoder", "model": "m", "batch_size": 0},
     r"option 'reranker' field 'batch_size': expected an integer >= 1, got 0"),
    ("relevance", {"kind": "llm", "temperature": 0.5}, r"unknown field 'temperature' for kind 'llm'; known: no, "
                                                       r"prompt, yes"),
    ("relevance", {"kind": "llm", "llm": "smollm2"}, r"field 'llm' is set by hopkit"),
    ("entailment", {"kind": "nli", "model": ""}, r"field 'model': expected a non-empty string"),
    ("answer", {"kind": "extractive", "model": "m", "max_answer_tokens": 2.5}, r"max_answer_tokens"),
    ("similarity", {"kind": "lexical", "measure": "cosine"}, r"expected one of 'f1', 'jaccard'"),
])
def test_a_wrong_option_is_named_before_anything_is_loaded(role: str, value: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        judge_spec(role, value, option="reranker")  # type: ignore[arg-type]


def test_a_spec_of_another_role_and_an_unknown_role_are_refused() -> None:
    with pytest.raises(ConfigError, match="expected a entailment judge, got a spec for a relevance judge"):
        judge_spec("entailment", judge_spec("relevance", "llm"))
    with pytest.raises(ConfigError, match="unknown judge role 'reranking'"):
        judge_spec("reranking", "llm")  # type: ignore[arg-type]


def test_the_llm_kind_is_built_on_the_methods_llm_with_its_options() -> None:
    relevance = relevance_judge({"kind": "llm", "yes": " Yes", "no": " No"}, llm=SCORING)
    assert isinstance(relevance, LLMRelevanceJudge) and relevance.scorer.yes == " Yes"
    assert isinstance(entailment_judge("llm", llm=SCORING), LLMEntailmentJudge)
    assert isinstance(answer_judge({"kind": "llm", "max_tokens": 8}, llm=SCORING), LLMAnswerJudge)
    assert isinstance(similarity_judge("llm", llm=SCORING), LLMSimilarityJudge)
    assert isinstance(similarity_judge("lexical"), LexicalSimilarity)
    with pytest.raises(ConfigError, match="option 'nli': the 'llm' judge needs the method's LLM"):
        build_judge("entailment", "llm", option="nli")


def test_a_missing_optional_package_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match=r"the NLI judge needs the hopkit_no_such_module package, which is not "
                                          r"installed .*pip install 'hopkit\[judges\]'"):
        import_optional("hopkit_no_such_module", needed_by="the NLI judge")

    def not_installed(name: str) -> None:
        raise ModuleNotFoundError(f"No module named {name!r}")

    monkeypatch.setattr("hopkit.judges.optional.importlib.import_module", not_installed)
    for role, kind in (("relevance", "cross-encoder"), ("entailment", "nli"), ("answer", "extractive")):
        with pytest.raises(ConfigError, match=r"needs the \w+ package, which is not installed"):
            build_judge(role, {"kind": kind, "model": "some/model"})  # type: ignore[arg-type]


def test_the_backends_own_checks_are_named_with_the_option() -> None:
    with pytest.raises(ConfigError, match=r"option 'reranker': option 'prompt': the template must have the "
                                          r"placeholders \{query\}, \{text\}"):
        relevance_judge({"kind": "llm", "prompt": "{text}"}, llm=SCORING, option="reranker")
