"""ALCE's zero-shot readers as the MIGRES paper runs them, over a real BM25 index with a scripted
reranker: the documents the answer reads, whole, cut to sentences, summarised or extracted, in
ALCE's own prompt."""

from __future__ import annotations

import pytest

from hopkit.errors import ConfigError
from hopkit.judges.scripted import ScriptedRelevance
from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.alce import METHOD, ALCE, ALCEConfig
from hopkit.methods.alce.prompts import INSTRUCTION, is_irrelevant, without_citations
from hopkit.methods.alce.steps import ALCECondense, ALCERerank
from hopkit.records import Paragraph, Query
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.traces import collect_trace

pytestmark = pytest.mark.unit

CORPUS = [
    Paragraph(0, "Velmora Ironworks", "Velmora Ironworks was founded by Ada Quill in 1871. It closed in 1950."),
    Paragraph(1, "Ada Quill", "Ada Quill was an engineer. Ada Quill was born in the port of Tarsk."),
    Paragraph(2, "Tarsk", "Tarsk is a port on the Orl River, where Ada Quill grew up."),
]
QUESTION = Query("q1", "Where was Ada Quill, founder of Velmora Ironworks, born?", ("Tarsk",))


def relevance(query: str, text: str) -> float:
    """Ada Quill's page first, then the company's, then the rest; her birth sentence above her page."""
    if "born in the port" in text and "engineer" not in text:
        return 9.0
    if "engineer" in text and "born" not in text:
        return 1.0
    return 6.0 if "Ada Quill" in text and "engineer" in text else 5.0 if "Velmora" in text else 1.0


def run(config: ALCEConfig, llm: ScriptedLLM) -> tuple:
    method = ALCE(llm, BM25Retriever.build(CORPUS), config, reranker=ScriptedRelevance(relevance))
    with collect_trace() as trace:
        result = method.generate(QUESTION)
    return result, trace.steps


def test_vanilla_reads_the_top_k_reranked_documents_in_alce_s_prompt() -> None:
    llm = ScriptedLLM(["Ada Quill was born in Tarsk [1]."])
    result, steps = run(ALCEConfig(reader="vanilla", k=2), llm)
    assert llm.prompts[0] == (
        f"{INSTRUCTION}\n\nQuestion: {QUESTION.text}\n\n"
        "Document [1](Title: Ada Quill): Ada Quill was an engineer. Ada Quill was born in the port of Tarsk.\n"
        "Document [2](Title: Velmora Ironworks): Velmora Ironworks was founded by Ada Quill in 1871. It closed in "
        "1950.\n\nAnswer:")
    assert result.text == "Ada Quill was born in Tarsk" and result.chunk_ids == (1, 0)
    assert result.metadata.generation == "Ada Quill was born in Tarsk [1]."
    rerank = steps[1].payload(ALCERerank)
    assert rerank.query == QUESTION.text and steps[1].paragraph_ids[:2] == (1, 0)
    assert [s.kind for s in steps] == ["retrieve", "retrieve", "read"]


def test_the_answer_ends_at_its_first_newline_as_alce_s_do() -> None:
    llm = ScriptedLLM(["Tarsk [1].\nThis answer is accurate [1]. The answer is also engaging, as it is short."])
    result, _ = run(ALCEConfig(reader="vanilla", k=2), llm)
    assert result.text == "Tarsk" and result.metadata.generation == "Tarsk [1]."


def test_vanilla_s_keeps_the_sentences_of_each_document_that_outscore_it() -> None:
    llm = ScriptedLLM(["Tarsk [1]."])
    result, steps = run(ALCEConfig(reader="vanilla-s", k=2, relevance_threshold=3.0), llm)
    assert "Document [1](Title: Ada Quill): Ada Quill was born in the port of Tarsk.\n" in llm.prompts[0]
    cut = [s.payload(ALCECondense) for s in steps if s.kind == "reason"]
    assert [c.how for c in cut] == ["sentences", "sentences"] and result.text == "Tarsk"


@pytest.mark.parametrize("reader, cue", [("summ", "Summary:"), ("snippet", "Extracted span:")])
def test_summ_and_snippet_condense_in_rank_order_dropping_irrelevant_until_k(reader: str, cue: str) -> None:
    def reply(prompt: str) -> str:
        if prompt.endswith(cue):
            return "Irrelevant." if "Title: Velmora Ironworks" in prompt else "Ada Quill was born in Tarsk."
        return "Tarsk [1][2]."
    llm = ScriptedLLM(reply)
    result, steps = run(ALCEConfig(reader=reader, k=2), llm)  # type: ignore[arg-type]
    condensed = [s.payload(ALCECondense) for s in steps if s.kind == "reason"]
    assert [c.kept for c in condensed] == [True, False, True]  # Ada Quill, Velmora (irrelevant), Tarsk
    assert result.metadata.condensing_calls == 3 and result.chunk_ids == (1, 2)
    assert llm.prompts[-1].count("Document [") == 2 and "Title: Velmora" not in llm.prompts[-1]
    assert f'with the question of interest "{QUESTION.text}"' in llm.prompts[0] if reader == "summ" else True
    assert result.text == "Tarsk"


def test_condensing_goes_through_the_chat_template_when_the_model_has_one() -> None:
    llm = ScriptedLLM(lambda prompt: "Tarsk." if "<|assistant|>" in prompt else "Tarsk [1].", chat=True)
    run(ALCEConfig(reader="summ", k=1), llm)
    assert llm.prompts[0].startswith("<|system|>\nYou are a helpful assistant that summarizes")


def test_citations_and_irrelevance_are_read_tolerantly() -> None:
    assert without_citations("Tarsk [1][2], a port [3].") == "Tarsk, a port."
    # ALCE's get_shorter_text: the word anywhere, in either case; an empty summary is kept
    assert is_irrelevant("The document is irrelevant to the question.") and is_irrelevant('"Irrelevant"')
    assert not is_irrelevant("  ") and not is_irrelevant("IRRELEVANT")
    # the saved runs' rule: empty, or the word first
    assert is_irrelevant('"Irrelevant"', "starts") and is_irrelevant("  ", "starts")
    assert not is_irrelevant("Not irrelevant: Tarsk", "starts")


def test_vanilla_s_drops_a_document_left_without_sentences() -> None:
    """δ 7: the company's sentences outscore its passage (5) but none reaches δ, as MIGRES's filter drops it."""
    llm = ScriptedLLM(lambda prompt: "Tarsk [1].")
    result, steps = run(ALCEConfig(reader="vanilla-s", k=2, relevance_threshold=7.0), llm)
    assert "Document [1](Title: Ada Quill): Ada Quill was born in the port of Tarsk.\n\nAnswer:" in llm.prompts[0]
    assert [s.payload(ALCECondense).kept for s in steps if s.kind == "reason"] == [True, False]
    assert result.chunk_ids == (1,)
    run(ALCEConfig(reader="vanilla-s", k=2, relevance_threshold=7.0, empty_sentences="shown"), llm)
    assert "Document [2](Title: Velmora Ironworks): \n\nAnswer:" in llm.prompts[-1]


def test_with_no_summary_kept_the_answer_reads_the_top_document_whole() -> None:
    llm = ScriptedLLM(lambda prompt: "Irrelevant." if prompt.endswith("Summary:") else "Tarsk [1].")
    result, steps = run(ALCEConfig(reader="summ", k=2), llm)
    assert f"Document [1](Title: Ada Quill): {CORPUS[1].text}\n\nAnswer:" in llm.prompts[-1]
    assert steps[-2].payload(ALCECondense).how == "full_text" and result.chunk_ids == (1,)
    run(ALCEConfig(reader="summ", k=2, none_kept="no_documents"), llm)
    assert "Document [" not in llm.prompts[-1]


def test_an_unknown_reader_is_refused_naming_the_option() -> None:
    with pytest.raises(ConfigError, match="'reader'"):
        ALCEConfig(reader="reranked")  # type: ignore[arg-type]
    assert METHOD.warnings is not None and METHOD.warnings(ALCEConfig(reader="vanilla-s")) != []
    assert METHOD.warnings(ALCEConfig()) == []
