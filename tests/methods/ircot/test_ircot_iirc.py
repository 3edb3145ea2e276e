"""IIRC's handling in IRCoT (Appendix B): title generation, mapping, scoped retrieval."""

from __future__ import annotations

import pytest

from hopkit.errors import ConfigError
from hopkit.llm.fake import ScriptedLLM
from hopkit.methods.ircot.iirc import FuzzyTitleMatcher, IIRCConfig, IIRCTitleScoper, RetrieverTitleMatcher, TitleMatcher
from hopkit.methods.ircot.method import IRCoT, IRCoTConfig
from hopkit.parsing import parse_titles
from hopkit.records import Paragraph, Query

pytestmark = pytest.mark.unit

MAIN = Paragraph(20, "Lost Gravity", "Lost Gravity is a roller coaster built by Mack Rides in Walibi Holland.")
TITLE_DEMO = ('Wikipedia Title: Walter Dill Scott\nScott was born in Cooksville, Illinois.\n\n'
              "Q: The question is: 'When was the town Scott was born in founded?'. Generate titles of 1 "
              'Wikipedia pages that have relevant information to answer this question.\nA: ["Cooksville, Illinois"]')


class DictMatcher:
    def __init__(self, mapping: dict[str, str]) -> None:
        self.mapping = mapping
        self.asked: list[str] = []

    def match(self, title: str) -> str | None:
        self.asked.append(title)
        return self.mapping.get(title)


def iirc_query(kit) -> Query:
    return Query(id="iirc1", text="In what country is the maker of Lost Gravity?", main_passage=MAIN)


def test_titles_are_generated_mapped_and_restrict_every_retrieval(kit) -> None:
    matcher = DictMatcher({"Mack Rides GmbH": "Mack Rides", "Germany (country)": "Germany", "Nowhere": ""})
    llm = ScriptedLLM(['["Mack Rides GmbH", "Germany (country)", "Nowhere"]',
                       "Mack Rides is a German company.", "So the answer is: Germany.", "Germany"])
    retriever = kit.RecordingRetriever([*kit.CORPUS, MAIN])
    method = IRCoT(llm, retriever, IRCoTConfig(k_per_step=2, reader="direct"), [kit.DEMO_1], [kit.READER_DEMO],
                   title_matcher=matcher, title_demonstrations=[TITLE_DEMO])
    result = method.generate(iirc_query(kit))
    title_prompt = llm.prompts[0]
    assert title_prompt.startswith(TITLE_DEMO + "\n\n\n")
    assert title_prompt.endswith(
        f"Wikipedia Title: Lost Gravity\n{MAIN.text}\n\nQ: The question is: 'In what country is the maker of "
        "Lost Gravity?'. Generate titles of 3 Wikipedia pages that have relevant information to answer this "
        "question.\nA:")
    assert matcher.asked == ["Mack Rides GmbH", "Germany (country)", "Nowhere"]
    assert all(c.titles == frozenset({"Mack Rides", "Germany"}) for c in retriever.calls)
    assert set(result.chunk_ids) <= {2, 4}
    assert result.metadata["iirc_titles"] == ["Mack Rides", "Germany"]
    assert result.metadata["iirc_generated_titles"] == ["Mack Rides GmbH", "Germany (country)", "Nowhere"]


def test_main_passage_is_first_in_every_prompt_and_never_collected(kit) -> None:
    matcher = DictMatcher({"Mack Rides": "Mack Rides"})
    llm = ScriptedLLM(['["Mack Rides"]', "Mack Rides is a German company.", "So the answer is: Germany.", "Germany"])
    retriever = kit.RecordingRetriever([*kit.CORPUS, MAIN])
    result = IRCoT(llm, retriever, IRCoTConfig(k_per_step=2, reader="direct"), [kit.DEMO_1], [kit.READER_DEMO],
                   title_matcher=matcher).generate(iirc_query(kit))
    for prompt in llm.prompts[1:]:
        assert prompt.split("\n\n\n")[-1].startswith(f"Wikipedia Title: Lost Gravity\n{MAIN.text}\n\n")
    assert MAIN.id not in result.chunk_ids
    assert all(MAIN.id in c.exclude for c in retriever.calls)


def test_no_matching_title_falls_back_to_the_whole_corpus(kit) -> None:
    llm = ScriptedLLM(['["Atlantis"]', "So the answer is: Germany.", "Germany"])
    retriever = kit.RecordingRetriever(kit.CORPUS)
    result = IRCoT(llm, retriever, IRCoTConfig(reader="direct"), [kit.DEMO_1], [kit.READER_DEMO],
                   title_matcher=DictMatcher({})).generate(iirc_query(kit))
    assert retriever.calls[0].titles is None
    assert result.metadata["iirc_titles"] == []


def test_questions_without_main_passage_skip_the_title_step(kit) -> None:
    llm = ScriptedLLM(["So the answer is: Germany.", "Germany"])
    retriever = kit.RecordingRetriever(kit.CORPUS)
    result = IRCoT(llm, retriever, IRCoTConfig(reader="direct"), [kit.DEMO_1], [kit.READER_DEMO],
                   title_matcher=DictMatcher({})).generate(kit.QUESTION)
    assert len(llm.prompts) == 2
    assert "iirc_titles" not in result.metadata


def test_title_count_and_flan_prefix() -> None:
    config = IIRCConfig(title_count=2, question_prefix="Answer the following question.\n")
    scoper = IIRCTitleScoper(ScriptedLLM(["Mack Rides, Germany"]), DictMatcher({"Germany": "Germany"}), config)
    prompt = scoper.prompt("Where?", MAIN)
    assert prompt.endswith("Q: Answer the following question.\nThe question is: 'Where?'. Generate titles of 2 "
                           "Wikipedia pages that have relevant information to answer this question.\nA:")
    scope = scoper.scope("Where?", MAIN)
    assert scope.generated == ("Mack Rides", "Germany")
    assert scope.titles == ("Germany",)


def test_iirc_options_are_checked() -> None:
    with pytest.raises(ConfigError, match="title_count"):
        IIRCConfig(title_count=0)
    with pytest.raises(ConfigError, match="question_prefix"):
        IIRCConfig(question_prefix="Answer.")


@pytest.mark.parametrize("generation, titles", [
    ('["Cooksville, Illinois", "Denmark"]', ["Cooksville, Illinois", "Denmark"]),
    ("Brownist, Puritans", ["Brownist", "Puritans"]),
    ('["A", "A", " "]', ["A"]),
    ("", []),
])
def test_parse_titles(generation: str, titles: list[str]) -> None:
    assert parse_titles(generation) == titles


def test_fuzzy_title_matcher() -> None:
    matcher = FuzzyTitleMatcher.from_paragraphs([Paragraph(1, "Mack Rides", "x"), Paragraph(2, "Germany", "y"),
                                                 Paragraph(3, "Germany", "z")])
    assert isinstance(matcher, TitleMatcher)
    assert matcher.titles == ("Mack Rides", "Germany")
    assert matcher.match("mack rides gmbh") == "Mack Rides"
    assert matcher.match("Germany") == "Germany"
    assert matcher.match("Zzyzx qqq") is None
    assert matcher.match("") is None


def test_retriever_title_matcher_over_a_title_corpus(kit) -> None:
    titles = RetrieverTitleMatcher.title_corpus([Paragraph(5, "Mack Rides", "a"), Paragraph(6, "Mack Rides", "b"),
                                                 Paragraph(7, "German Empire", "c")])
    assert titles == [Paragraph(0, "Mack Rides", "Mack Rides"), Paragraph(1, "German Empire", "German Empire")]
    matcher = RetrieverTitleMatcher(kit.RecordingRetriever(titles))
    assert isinstance(matcher, TitleMatcher)
    assert matcher.match("the German state") == "German Empire"
    assert matcher.match("Mack") == "Mack Rides"
    assert matcher.match("Atlantis") is None
    assert matcher.match(" ") is None
