import pytest

from hopkit.errors import ConfigError
from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.demonstrations import DemonstrationSpec
from hopkit.methods.nor import METHOD as NOR_METHOD
from hopkit.methods.nor.method import NoR, NoRConfig
from hopkit.methods.oner import METHOD as ONER_METHOD
from hopkit.methods.oner.method import OneR, OneRConfig, OneRRetrieve
from hopkit.methods.reader import ReaderConfig
from hopkit.options import run_options
from hopkit.records import Paragraph, Query
from hopkit.retrieval.bm25 import BM25Retriever
from hopkit.retrieval.memory import InMemoryRetriever
from hopkit.traces import collect_trace
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


# The IRCoT authors' NoR and OneR (issue 71): their reader's stop, their Flan-T5 question prefix, OneR's
# query without wh-words and its hits admitted as IRCoT admits them; the saved runs' values stay reachable.

FLAN_DEMONSTRATION = "Q: Answer the following question.\nWho built Walls and Bridges?\nA: John Lennon"
MULTI_LINE_COT = "Velmora Ironworks was founded by Ada Quill.\nSo the answer is: Ada Quill."


@pytest.mark.parametrize("method", ["nor", "oner"])
def test_the_reader_stops_at_the_first_line_break_as_the_authors_gpt3generator(method: str) -> None:
    def answer(**options: str) -> str:
        llm = ScriptedLLM([MULTI_LINE_COT])
        reader = ReaderConfig(mode="cot")
        if method == "nor":
            return NoR(llm, NoRConfig(reader=reader, **options)).generate(QUERY).text
        return OneR(llm, BM25Retriever.build(CORPUS), OneRConfig(k=1, reader=reader, **options)).generate(QUERY).text
    assert answer() == "Velmora Ironworks was founded by Ada Quill"  # the first line, no "answer is" in it
    assert answer(reader_stop="paragraph") == "Ada Quill"  # the saved runs' stop read on to the blank line


@pytest.mark.parametrize("entry", [NOR_METHOD, ONER_METHOD], ids=["nor", "oner"])
def test_the_flan_t5_demonstrations_bring_the_authors_question_prefix_on_its_own_line(entry) -> None:
    flan = DemonstrationSpec("hotpotqa", distractors=2, family="flan_t5")
    options = entry.as_run(entry.options(demonstrations=flan, reader=ReaderConfig(mode="cot")))
    assert options.reader.question_prefix == "Answer the following question.\n"  # for a CoT reader too
    assert entry.as_run(entry.options()).reader.question_prefix == ""
    llm = ScriptedLLM(["Ada Quill"])
    if entry is NOR_METHOD:
        NoR(llm, options, [FLAN_DEMONSTRATION]).generate(QUERY)
    else:
        OneR(llm, BM25Retriever.build(CORPUS), options, [FLAN_DEMONSTRATION]).generate(QUERY)
    assert llm.prompts[0].startswith(FLAN_DEMONSTRATION)
    assert llm.prompts[0].endswith("Q: Answer the following question.\nWho founded Velmora Ironworks?\nA:")


def test_oner_queries_the_question_without_its_wh_words_and_skips_retrieval_when_none_is_left() -> None:
    def queried(question: str, **options: str) -> tuple[str, tuple[int, ...]]:
        with collect_trace() as trace:
            result = OneR(ScriptedLLM(["Ada Quill"]), BM25Retriever.build(CORPUS), OneRConfig(k=2, **options)
                          ).generate(Query("q", question))
        return trace.steps[0].payload(OneRRetrieve).query, result.chunk_ids
    assert queried("Who founded Velmora Ironworks?") == ("founded Velmora Ironworks?", (0,))
    assert queried("Who founded Velmora Ironworks?", query="question")[0] == "Who founded Velmora Ironworks?"
    assert queried("Who is?") == ("", ())


def test_oner_admits_its_hits_as_the_authors_skipping_long_paragraphs_and_near_duplicates() -> None:
    long = Paragraph(10, "Velmora Ironworks history", "Velmora Ironworks founder Ada Quill. " + "forge " * 600)
    near = Paragraph(11, "Velmora Ironworks", "Velmora Ironworks was founded by Ada Quill in 1871!")
    retriever = BM25Retriever.build([*CORPUS, long, near])

    def read(**options: str) -> tuple[tuple[int, ...], str]:
        llm = ScriptedLLM(["Ada Quill"])
        result = OneR(llm, retriever, OneRConfig(k=3, **options)).generate(QUERY)
        return tuple(sorted(result.chunk_ids)), llm.prompts[0]
    admitted, prompt = read()  # BM25's top 3: paragraph 0, its near copy 11, the 600-word 10
    assert admitted == (0,) and prompt.count("Wikipedia Title: Velmora Ironworks\n") == 1 and "forge" not in prompt
    assert read(admit_hits="all")[0] == (0, 10, 11)  # the saved runs read every hit


def test_the_saved_runs_values_leave_the_run_identity_unchanged() -> None:
    before = OneRConfig(query="question", admit_hits="all", reader_stop="paragraph")
    assert run_options(before) == {"k": 5, "reader": run_options(ReaderConfig())}
    assert {"query", "admit_hits", "reader_stop"} <= set(run_options(OneRConfig()))
    assert "reader_stop" not in run_options(NoRConfig(reader_stop="paragraph"))
