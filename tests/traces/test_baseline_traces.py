"""OneR and NoR record their steps: OneR a retrieval then a reading, NoR one reading."""

from __future__ import annotations

import pytest

from hopkit.llm.fake import ScriptedLLM
from hopkit.llm.meter import MeteredLLM
from hopkit.methods.nor.method import NoR
from hopkit.methods.oner.method import OneR, OneRConfig
from hopkit.records import Paragraph, Query
from hopkit.retrieval.memory import InMemoryRetriever
from hopkit.traces import collect_trace
from hopkit.usage import track_usage
from tests import fictional_corpus

pytestmark = pytest.mark.unit

CORPUS = list(fictional_corpus.paragraphs(3))
QUERY = Query(id="q1", text="Who founded Velmora Ironworks?", answers=("Ada Quill",))


def test_oner_records_the_retrieval_with_its_scores_then_the_reading() -> None:
    retriever = InMemoryRetriever(CORPUS)
    with track_usage(), collect_trace() as trace:
        result = OneR(MeteredLLM(ScriptedLLM(["Ada Quill."])), retriever, OneRConfig(k=2)).generate(QUERY)
    retrieve, read = trace.steps
    searched = "founded Velmora Ironworks?"  # the question without its wh-word, as the IRCoT authors' OneR asks
    hits = retriever.retrieve(searched, 2)
    assert (retrieve.kind, retrieve.parent, retrieve.input, retrieve.llm_calls) == ("retrieve", None, searched, 0)
    assert retrieve.paragraph_ids == result.chunk_ids == tuple(hit.id for hit in hits)
    assert retrieve.scores == tuple(hit.score for hit in hits)
    assert (read.kind, read.parent, read.output, read.llm_calls) == ("read", 1, "Ada Quill", 1)
    assert read.paragraph_ids == result.chunk_ids and read.extra == {"generation": "Ada Quill."}


def test_nor_records_one_reading_with_the_main_passage_it_showed() -> None:
    query = Query(id="q2", text="When?", main_passage=Paragraph(-1, "Main page", "The main passage text."))
    with track_usage(), collect_trace() as trace:
        NoR(MeteredLLM(ScriptedLLM(["1871"]))).generate(query)
    (read,) = trace.steps
    assert (read.kind, read.input, read.output, read.paragraph_ids, read.llm_calls) == ("read", "When?", "1871",
                                                                                          (-1,), 1)
