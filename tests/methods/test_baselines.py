import pytest

from hopkit.errors import ConfigError
from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.nor.method import NoR
from hopkit.methods.oner.method import OneR, OneRConfig
from hopkit.methods.reader import ReaderConfig
from hopkit.records import Paragraph, Query
from hopkit.retrieval.memory import InMemoryRetriever
from tests import fictional_corpus

pytestmark = pytest.mark.unit

CORPUS = list(fictional_corpus.paragraphs(4))
QUERY = fictional_corpus.FOUNDER


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
    llm = ScriptedLLM(["Tarsk."])
    query = Query("q3", "Where is Ada Quill, who founded Velmora Ironworks, from?", ("Tarsk",))
    result = OneR(llm, InMemoryRetriever(CORPUS), OneRConfig(k=2)).generate(query)
    assert result.text == "Tarsk"
    assert sorted(result.chunk_ids) == [0, 1]  # k of the 4, those sharing the question's words
    assert "Wikipedia Title: Velmora Ironworks" in llm.prompts[0] and "Wikipedia Title: Ada Quill" in llm.prompts[0]
    assert llm.prompts[0].endswith("Q: Where is Ada Quill, who founded Velmora Ironworks, from?\nA:")


def test_oner_cot_reader() -> None:
    llm = ScriptedLLM(["It was founded by Ada Quill. So the answer is: Ada Quill."])
    config = OneRConfig(k=1, reader=ReaderConfig(mode="cot"))
    assert OneR(llm, InMemoryRetriever(CORPUS), config).generate(QUERY).text == "Ada Quill"


def test_oner_rejects_a_k_below_one() -> None:
    with pytest.raises(ConfigError, match="'k'"):
        OneRConfig(k=0)
