"""Reading the modules' dict-like responses tolerantly, never evaluating them."""

from __future__ import annotations

import pytest

from hopkit.errors import ParseError
from hopkit.methods.migres.responses import LeafFact, parse_leaf, parse_main, parse_queries

pytestmark = pytest.mark.unit


def test_main_reads_the_papers_response_with_unescaped_quotes() -> None:
    verdict = parse_main('{"answer": {"text": "unanswerable", "confidence": 1}, "explanation": "Only the director of '
                         '"I Come With The Rain" is known.", "missing_information": "The nationality of the director '
                         'of the film "Levity.""}')
    assert verdict.unanswerable and verdict.confidence == 1
    assert verdict.missing_information == 'The nationality of the director of the film "Levity."'


@pytest.mark.parametrize(("text", "answer", "confidence"), [
    ('{"answer": {"text": "No", "confidence": 5}, "explanation": "x", "missing_information": ""}', "No", 5),
    ("{'answer': {'text': 'Tarsk', 'confidence': '4'}, 'explanation': 'x'}", "Tarsk", 4),
    ('{"answer": "Paris", "confidence": 9}', "Paris", 5),
    ('{"answer": {"text": "Tarsk"}}', "Tarsk", 1),
    ('Sure! {"answer": {"text": "Tarsk", "confidence": 3}', "Tarsk", 3),
])
def test_main_tolerates_what_small_models_write(text: str, answer: str, confidence: int) -> None:
    verdict = parse_main(text)
    assert (verdict.answer, verdict.confidence) == (answer, confidence)


def test_the_explanation_stands_in_for_blank_missing_information() -> None:
    verdict = parse_main('{"answer": {"text": "unanswerable", "confidence": 1}, "explanation": "No birthplace.", '
                         '"missing_information": ""}')
    assert verdict.missing_information == "No birthplace."


@pytest.mark.parametrize("text", ["So the answer is: Tarsk.", "", '{"answer": {"text": ""}}'])
def test_main_refuses_a_response_without_an_answer(text: str) -> None:
    with pytest.raises(ParseError) as error:
        parse_main(text)
    assert error.value.raw == text


def test_leaf_reads_every_item_even_after_a_misplaced_bracket() -> None:
    text = ('{"useful_information": [{"info": "Carl Boese directed it", "support_passages": [0]}]}, '
            '{"info": "Carmine Gallone directed it", "support_passages": [1, 2, 1]}]')
    assert parse_leaf(text) == [LeafFact("Carl Boese directed it", (0,)),
                                LeafFact("Carmine Gallone directed it", (1, 2))]


def test_leaf_keeps_an_item_whose_support_is_not_indices_with_no_support() -> None:
    text = '{"useful_information": [{"info": "Curtis Bernhardt died in 1981", "support_passages": [GPT knowledge]}]}'
    assert parse_leaf(text) == [LeafFact("Curtis Bernhardt died in 1981", ())]


def test_leaf_reads_an_empty_list_as_no_facts() -> None:
    assert parse_leaf('{"useful_information": []}') == []


def test_leaf_refuses_text_without_information() -> None:
    with pytest.raises(ParseError, match="useful_information"):
        parse_leaf("The passages say nothing useful.")


def test_queries_are_read_one_per_line_without_markers() -> None:
    text = 'What is the nationality of Ed Solomon?\n1. Who directed "Levity"?\n- Query 3: "Where is Tarsk?"\n\n'
    assert parse_queries(text) == ["What is the nationality of Ed Solomon?", 'Who directed "Levity"?',
                                   "Where is Tarsk?"]
    assert parse_queries('["A?", "B?", "A?"]') == ["A?", "B?"]


def test_a_numbered_list_run_into_one_line_is_split_at_its_numbers() -> None:
    # Qwen2.5-Coder's zero-shot Query Generator on HotpotQA: fifteen queries on one line
    text = (" 1. What is the name of the city in which Fiske O'Hara was born? 2. What is the population of the city "
            "in which he was born? 3. What is the name of the county? 4. What is the")
    assert parse_queries(text) == ["What is the name of the city in which Fiske O'Hara was born?",
                                   "What is the population of the city in which he was born?",
                                   "What is the name of the county?"]  # "What is the": not a question
    # numbers that do not count 1, 2, 3... are not list numbers
    assert parse_queries("How many people lived there in 2010? 2. 5 million?") == [
        "How many people lived there in 2010? 2. 5 million?"]
    assert parse_queries("Who won 3. place in 1990?") == ["Who won 3. place in 1990?"]
    assert parse_queries("Who founded it?\n2. When?") == ["Who founded it?", "When?"]
    # a list numbered line by line whose second line runs on (MuSiQue, 2hop__51113_84616)
    text = ("1. Who wrote the song 'Moon River'?\n2. What awards did the actress win? 3. What is the name of the "
            "actress? 4. What")
    assert parse_queries(text) == ["Who wrote the song 'Moon River'?", "What awards did the actress win?",
                                   "What is the name of the actress?"]
    assert parse_queries("Who won?\n2. Who won 3. place in 1990?") == ["Who won?", "Who won 3. place in 1990?"]


def test_only_the_questions_are_queries_when_the_response_asks_questions() -> None:
    # Qwen2.5-Coder's zero-shot Query Generator on StrategyQA: an explanation run on after the last
    # question, and the prompt's headings echoed as if they were queries
    text = ("1. What is the weight of World of Warcraft?\n2. What is the weight of a loaf of bread?\n"
            "3. How do these weights compare? To solve the Original Question, we need to compare them. "
            "The new queries are:\nKnown Information: None\nMissing Information: the weights.")
    assert parse_queries(text) == ["What is the weight of World of Warcraft?", "What is the weight of a loaf of bread?",
                                   "How do these weights compare?"]
    assert parse_queries("The new queries are:\n- Who sang \"Why?\" in 1990?\n- \"Where was she born?\" She was") == [
        'Who sang "Why?" in 1990?', "Where was she born?"]
    assert parse_queries("Who won? Where? What is the") == ["Who won?", "Where?"]
    # queries that are not questions are kept as written
    assert parse_queries("Find the birth date of X\nFind the spouse of Y") == [
        "Find the birth date of X", "Find the spouse of Y"]
    assert parse_queries('Who sang "Why?" in 1990') == ['Who sang "Why?" in 1990']


def test_a_response_cut_short_loses_its_unfinished_last_query() -> None:
    text = "1. Who directed Levity? 2. Where was he born? 3. What is the name of the city in which Fiske"
    assert parse_queries(text, cut_short=True) == ["Who directed Levity?", "Where was he born?"]
    assert parse_queries(text)[-1] == "Where was he born?"   # the unfinished one asks nothing
    assert parse_queries("Who directed Levity?\nFind the city in which Fiske", cut_short=True) == [
        "Who directed Levity?"]
    assert parse_queries("What is the name of the city in which", cut_short=True) == [
        "What is the name of the city in which"]
    with pytest.raises(ParseError):
        parse_queries(" \n ")
