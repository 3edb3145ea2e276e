import pytest

from hopkit.errors import ConfigError
from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.nor.method import NoR
from hopkit.methods.oner.method import OneR, OneRConfig
from hopkit.methods.reader import ReaderConfig
from hopkit.records import Paragraph, Query
from hopkit.retrieval.memory import InMemoryRetriever

pytestmark = pytest.mark.unit

CORPUS = [
    Paragraph(0, "Velmora Ironworks", "Velmora Ironworks was founded by Ada Quill in 1871."),
    Paragraph(1, "Ada Quill", "Ada Quill, the engineer behind Velmora Ironworks, was born in the town of Tarsk."),
    Paragraph(2, "Tarsk", "Tarsk is a town on the Orl River."),
    Paragraph(3, "Orl River", "The Orl River flows into the Grey Sea."),
]
QUERY = Query(id="q1", text="Who founded Velmora Ironworks?", answers=("Ada Quill",), gold_paragraph_ids=(0,))


def test_nor_shows_no_paragraph() -> None:
    llm = ScriptedLLM(["Ada Quill"])
    result = NoR(llm).generate(QUERY)
    assert result.text == "Ada Quill" and result.chunk_ids == ()
    assert "Wikipedia Title" not in llm.prompts[0]


def test_nor_keeps_the_iirc_main_passage_in_the_context() -> None:
    llm = ScriptedLLM(["1871"])
    query = Query(id="q2", text="When?", main_passage=Paragraph(-1, "Main page", "The main passage text."))
    NoR(llm).generate(query)
    assert "Wikipedia Title: Main page\nThe main passage text." in llm.prompts[0]


def test_oner_retrieves_k_with_the_question_then_reads_them() -> None:
    llm = ScriptedLLM(["Ada Quill."])
    result = OneR(llm, InMemoryRetriever(CORPUS), OneRConfig(k=2)).generate(QUERY)
    assert result.text == "Ada Quill"
    assert len(result.chunk_ids) == 2 and result.chunk_ids[0] == 0
    assert "Wikipedia Title: Velmora Ironworks" in llm.prompts[0]
    assert llm.prompts[0].endswith("Q: Who founded Velmora Ironworks?\nA:")


def test_oner_cot_reader() -> None:
    llm = ScriptedLLM(["It was founded by Ada Quill. So the answer is: Ada Quill."])
    config = OneRConfig(k=1, reader=ReaderConfig(mode="cot"))
    assert OneR(llm, InMemoryRetriever(CORPUS), config).generate(QUERY).text == "Ada Quill"


def test_oner_rejects_a_k_below_one() -> None:
    with pytest.raises(ConfigError, match="'k'"):
        OneRConfig(k=0)
