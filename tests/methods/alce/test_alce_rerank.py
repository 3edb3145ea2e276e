"""ALCE's RERANK as ``tools/rerank_outputs.py`` chooses: four sampled answers over the vanilla documents,
each scored by its citation recall (every sentence must cite valid documents that, all together, entail
it), the first best kept, "" when none scores above 0 (or, as an option, the first sample); a model that
cannot sample is refused."""

from __future__ import annotations

import pytest

from hopkit.errors import LLMError
from hopkit.judges.scripted import ScriptedEntailment, ScriptedRelevance
from hopkit.judges.sentences import SyntokSplitter
from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.alce import ALCE, ALCEConfig
from hopkit.methods.alce.rerank import best_sample, citation_recall
from hopkit.methods.alce.steps import ALCESample
from hopkit.records import Paragraph, Query
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.traces import collect_trace

pytestmark = pytest.mark.unit

CORPUS = [
    Paragraph(0, "Ada Quill", "Ada Quill was an engineer born in the port of Tarsk."),
    Paragraph(1, "Velmora Ironworks", "Velmora Ironworks was founded by Ada Quill in 1871."),
]
QUESTION = Query("q1", "Where was Ada Quill, founder of Velmora Ironworks, born?", ("Tarsk",))
DOCUMENTS = [(p.title, p.text) for p in CORPUS]


def entails(premise: str, hypothesis: str) -> float:
    """Supported: what the documents say (Tarsk, 1871); not: anything about Orl."""
    return 0.9 if "Title: Ada Quill" in premise and "Orl" not in hypothesis else 0.1


def recall(answer: str) -> float:
    return citation_recall(answer, DOCUMENTS, ScriptedEntailment(entails), SyntokSplitter())


def test_a_sentence_counts_when_it_cites_valid_documents_that_entail_it() -> None:
    assert recall("Ada Quill was born in Tarsk [1].") == 1.0
    assert recall("Ada Quill was born in Tarsk [2].") == 1.0  # all the documents are the premise, as ALCE's code
    assert recall("Ada Quill was born in Tarsk.") == 0.0  # no citation
    assert recall("Ada Quill was born in Tarsk [3].") == 0.0  # a document the prompt did not have
    assert recall("She was born in Tarsk [1]. Tarsk is on the Orl [1].") == 0.5
    assert recall("") == 0.0


def test_a_citation_of_thousands_of_digits_is_an_invalid_one_not_an_error() -> None:
    """Issue 70: "[" and 5,000 digits (past Python's 4,300-digit limit on int()) raised a bare ValueError
    that failed every question; it names no document of the prompt, so the sentence is unsupported."""
    huge = "9" * 5000
    assert recall(f"Ada Quill was born in Tarsk [{huge}].") == 0.0
    assert recall(f"Ada Quill was born in Tarsk [1][{huge}].") == 0.0  # one invalid citation: not supported
    assert recall(f"Ada Quill was born in Tarsk [1]. Tarsk is a port [{'0' * 5000}1].") == 0.5
    result, _, _ = run([f"Tarsk [{huge}].", "Ada Quill was born in Tarsk [1].", "Tarsk.", "Tarsk."])
    assert result.text == "Ada Quill was born in Tarsk" and result.metadata.citation_recalls == (0.0, 1.0, 0.0, 0.0)


def test_the_first_best_sample_is_kept_and_none_when_all_are_zero() -> None:
    assert best_sample([0.5, 1.0, 1.0, 0.0]) == 1
    assert best_sample([0.0, 0.0]) is None


def run(script: list[str], **options: object) -> tuple:
    llm = ScriptedLLM(script, sampling=True)
    method = ALCE(llm, BM25Retriever.build(CORPUS), ALCEConfig(reader="rerank", k=2, **options),  # type: ignore[arg-type]
                  reranker=ScriptedRelevance(lambda query, text: 5.0 if "engineer" in text else 1.0),
                  entailment=ScriptedEntailment(entails))
    with collect_trace() as trace:
        result = method.generate(QUESTION)
    return result, trace.steps, llm


def test_rerank_samples_four_answers_and_keeps_the_one_with_the_highest_citation_recall() -> None:
    samples = ["Tarsk.", "Tarsk [1]. It lies on the Orl [1].", "Ada Quill was born in Tarsk [1].", "Tarsk [9]."]
    result, steps, llm = run(samples)
    assert llm.samples == [0, 1, 2, 3] and len(set(llm.prompts)) == 1
    assert result.text == "Ada Quill was born in Tarsk" and result.metadata.citation_recalls == (0.0, 0.5, 1.0, 0.0)
    drawn = [s.payload(ALCESample) for s in steps if s.kind == "reason"]
    assert [d.generation for d in drawn] == samples and [d.citation_recall for d in drawn] == [0.0, 0.5, 1.0, 0.0]
    assert [s.kind for s in steps] == ["retrieve", "retrieve"] + ["reason"] * 4 + ["read"]


def test_rerank_answers_nothing_when_no_sample_is_supported_as_alce_does() -> None:
    result, _, _ = run(["Tarsk.", "Orl [1].", "Tarsk.", "Tarsk."], samples=4)
    assert result.text == "" and result.metadata.generation == ""


def test_rerank_can_keep_the_first_sample_when_none_is_supported() -> None:
    result, _, _ = run(["Ada Quill was born in Tarsk.", "Orl [1].", "Tarsk.", "Tarsk."], unsupported_answer="first")
    assert result.text == "Ada Quill was born in Tarsk" and result.metadata.citation_recalls == (0.0,) * 4
    result, _, _ = run(["Tarsk.", "Tarsk [1].", "Tarsk.", "Tarsk."], unsupported_answer="first")
    assert result.metadata.generation == "Tarsk [1]."  # a supported sample still wins


def test_rerank_refuses_a_model_that_cannot_sample() -> None:
    with pytest.raises(LLMError, match="'sampling'.*RERANK"):
        ALCE(ScriptedLLM(["x"]), BM25Retriever.build(CORPUS), ALCEConfig(reader="rerank"))
