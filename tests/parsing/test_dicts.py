"""parse_dict: the dict-like responses MIGRES asks for, as small models write them."""

import ast
import builtins
import pickle

import pytest

from hopkit.errors import HopkitError
from hopkit.parsing import ParseError, parse_dict

pytestmark = pytest.mark.unit

MAIN = {"answer": "str", "confidence": "int", "explanation": "str"}
EXPECTED = {"answer": "Tarsk", "confidence": 4, "explanation": "Ada Quill was born in Tarsk."}


@pytest.mark.parametrize("text", [
    '{"answer": "Tarsk", "confidence": 4, "explanation": "Ada Quill was born in Tarsk."}',
    "{'answer': 'Tarsk', 'confidence': 4, 'explanation': 'Ada Quill was born in Tarsk.'}",
    '"answer": "Tarsk", "confidence": 4, "explanation": "Ada Quill was born in Tarsk."}',
    '{"answer": "Tarsk", "confidence": 4, "explanation": "Ada Quill was born in Tarsk."',
    '"answer": "Tarsk", "confidence": 4, "explanation": "Ada Quill was born in Tarsk."',
    'Sure! Here is my response:\n{"answer": "Tarsk", "confidence": 4, '
    '"explanation": "Ada Quill was born in Tarsk."}\nI hope this helps.',
    '```json\n{"answer": "Tarsk", "confidence": 4, "explanation": "Ada Quill was born in Tarsk."}\n```',
    '{"Explanation": "Ada Quill was born in Tarsk.", "CONFIDENCE": 4, "Answer": "Tarsk"}',
    '{answer: Tarsk, confidence: 4, explanation: Ada Quill was born in Tarsk.}',
    '{"answer": "Tarsk"\n "confidence": 4\n "explanation": "Ada Quill was born in Tarsk."}',
    '{"answer": "Tarsk", "confidence": "four", "explanation": "Ada Quill was born in Tarsk.",}',
    "Answer: Tarsk\nConfidence: 4/5\nExplanation: Ada Quill was born in Tarsk.",
    '{"response": {"answer": "Tarsk", "confidence": 4, "explanation": "Ada Quill was born in Tarsk."}}',
    'Format {answer, confidence}: {"answer": "Tarsk", "confidence": 4.0, "explanation": "Ada Quill was born in Tarsk."}',
])
def test_main_response_shapes(text: str) -> None:
    assert parse_dict(text, MAIN) == EXPECTED


@pytest.mark.parametrize("written, number", [
    ("4", 4), ('"4"', 4), ("three", 3), ('"Three"', 3), ('"3/5"', 3), ('"4 out of 5"', 4), ("5.0", 5),
    ("[4]", 4), ('"level 2."', 2), ("ten", 10), ("-1", -1),
])
def test_whole_numbers(written: str, number: int) -> None:
    assert parse_dict(f'{{"confidence": {written}}}', {"confidence": "int"}) == {"confidence": number}


@pytest.mark.parametrize("written, truth", [
    ("False", False), ("false", False), ('"no"', False), ('"No, the passages do not say."', False),
    ("True", True), ("true", True), ("'Yes'", True), ("1", True), ("0", False),
])
def test_booleans(written: str, truth: bool) -> None:
    assert parse_dict(f"{{'answerable': {written}}}", {"answerable": "bool"}) == {"answerable": truth}


def test_unanswerable_response_with_spaced_keys_and_an_apostrophe() -> None:
    text = "{'Answerable': False, 'Missing Information': 'the director's birthplace'}"
    assert parse_dict(text, {"answerable": "bool", "missing_information": "str"}) == {
        "answerable": False, "missing_information": "the director's birthplace"}


def test_key_spellings() -> None:
    fields = {"missing_information": "str"}
    for key in ("missing_information", "Missing Information", "MISSING-INFORMATION", "missingInformation"):
        assert parse_dict(f'{{"{key}": "x"}}', fields) == {"missing_information": "x"}


def test_queries_and_leaf_extraction() -> None:
    assert parse_dict('{"queries": ["Who founded X?", "Where was Ada born?"]}', {"queries": "list[str]"}) == {
        "queries": ["Who founded X?", "Where was Ada born?"]}
    leaf = {"useful_information": "str", "passage_ids": "list[int]"}
    assert parse_dict('{"useful_information": "Ada was born in Tarsk", "passage_ids": [1, 3]}', leaf) == {
        "useful_information": "Ada was born in Tarsk", "passage_ids": [1, 3]}
    assert parse_dict("Useful information: Ada was born in Tarsk\nPassage IDs: [1], [3]", leaf) == {
        "useful_information": "Ada was born in Tarsk", "passage_ids": [1, 3]}
    assert parse_dict('{"useful_information": "none", "passage_ids": "1 and 3"}', leaf)["passage_ids"] == [1, 3]
    assert parse_dict('{"useful_information": "", "passage_ids": []}', leaf) == {
        "useful_information": "", "passage_ids": []}


def test_unquoted_values_with_commas_run_to_the_next_key() -> None:
    assert parse_dict("{confidence: 4, answer: Paris, France}", {"answer": "str", "confidence": "int"}) == {
        "answer": "Paris, France", "confidence": 4}
    assert parse_dict("{answer: Paris, France, confidence: 4}", {"answer": "str", "confidence": "int"}) == {
        "answer": "Paris, France", "confidence": 4}


def test_numbers_and_booleans_read_as_text_keep_what_was_written() -> None:
    assert parse_dict('{"answer": 1984, "sure": true}', {"answer": "str", "sure": "str"}) == {
        "answer": "1984", "sure": "true"}
    assert parse_dict('{"score": "0.85 (fairly sure)"}', {"score": "float"}) == {"score": 0.85}


def test_escapes_are_decoded() -> None:
    text = r'{"answer": "line\nbreak \"quoted\" caf\u00e9 \ud83d\ude00", "other": "it\'s"}'
    assert parse_dict(text, {"answer": "str", "other": "str"}) == {
        "answer": 'line\nbreak "quoted" café \U0001F600', "other": "it's"}


def test_optional_fields_may_be_absent_or_null() -> None:
    fields = {"answer": "str", "confidence": "int", "missing_information": "str"}
    assert parse_dict('{"answer": "Tarsk", "confidence": null}', fields,
                      optional=["confidence", "missing_information"]) == {
        "answer": "Tarsk", "confidence": None, "missing_information": None}


def test_first_occurrence_wins() -> None:
    text = '{"answer": "Tarsk"}\n{"answer": "Velmora"}'
    assert parse_dict(text, {"answer": "str"}) == {"answer": "Tarsk"}


@pytest.mark.parametrize("text, detail", [
    ('{"answer": "Tarsk"}', "no value for 'confidence'"),
    ('{"answer": "Tarsk", "confidence": null}', "no value for 'confidence'"),
    ('{"answer": "Tarsk", "confidence": "high"}', "'confidence' should be int"),
    ("I cannot answer this question.", "no value for 'answer'"),
    ("", "no value for 'answer'"),
])
def test_failures_raise_parse_error_keeping_the_raw_text(text: str, detail: str) -> None:
    with pytest.raises(ParseError, match="expected a dict with 'answer' \\(str\\), 'confidence' \\(int\\)") as caught:
        parse_dict(text, {"answer": "str", "confidence": "int"})
    assert caught.value.raw == text
    assert detail in caught.value.detail
    assert isinstance(caught.value, HopkitError)


def test_parse_error_survives_pickling() -> None:
    error = ParseError("a list", "raw text", "no list")
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.expected, copy.raw, copy.detail, str(copy)) == (error.expected, error.raw, error.detail, str(error))


def test_long_raw_text_is_shortened_in_the_message_only() -> None:
    text = "x" * 1000
    with pytest.raises(ParseError) as caught:
        parse_dict(text, {"answer": "str"})
    assert caught.value.raw == text
    assert len(str(caught.value)) < 400


def test_bad_field_specs_are_programming_errors() -> None:
    with pytest.raises(ValueError, match="unknown kind 'number'"):
        parse_dict("{}", {"answer": "number"})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="optional keys"):
        parse_dict("{}", {"answer": "str"}, optional=["confidence"])
    with pytest.raises(ValueError, match="distinct keys"):
        parse_dict("{}", {"answer_id": "str", "answerId": "str"})


def test_model_text_is_never_evaluated(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("model text was evaluated")

    monkeypatch.setattr(builtins, "eval", refuse)
    monkeypatch.setattr(builtins, "exec", refuse)
    monkeypatch.setattr(ast, "literal_eval", refuse)
    text = "{'answer': __import__('os').system('echo owned'), 'confidence': 1 + 2}"
    assert parse_dict(text, {"answer": "str", "confidence": "int"}) == {
        "answer": "__import__('os').system('echo owned')", "confidence": 1}
