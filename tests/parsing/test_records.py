"""parse_record: a dict-like response read into the dataclass a method declares."""

from dataclasses import dataclass, field

import pytest

from hopkit.parsing import ParseError, parse_record

pytestmark = pytest.mark.unit


@dataclass(frozen=True)
class MainResponse:
    answerable: bool = True
    answer: str | None = None
    confidence: int = 0
    missing_information: str = ""


@dataclass(frozen=True)
class LeafResponse:
    useful_information: str
    passage_ids: list[int] = field(default_factory=list)


def test_fields_with_defaults_may_be_absent() -> None:
    assert parse_record('{"answer": "Tarsk", "confidence": "4"}', MainResponse) == MainResponse(
        answer="Tarsk", confidence=4)
    assert parse_record("{'Answerable': No, 'Missing information': 'her birthplace'}", MainResponse) == MainResponse(
        answerable=False, missing_information="her birthplace")


def test_required_fields_must_be_there() -> None:
    assert parse_record('{"useful_information": "x", "passage_ids": [2]}', LeafResponse) == LeafResponse("x", [2])
    with pytest.raises(ParseError, match="no value for 'useful_information'") as caught:
        parse_record('{"passage_ids": [2]}', LeafResponse)
    assert caught.value.raw == '{"passage_ids": [2]}'


def test_unparseable_field_types_are_refused() -> None:
    @dataclass
    class Nested:
        inner: dict[str, str]

    with pytest.raises(TypeError, match="Nested.inner is typed"):
        parse_record("{}", Nested)
    with pytest.raises(TypeError, match="not a dataclass"):
        parse_record("{}", dict)
