"""The sentence splitter: abbreviations, initials and decimal numbers do not end sentences."""

from __future__ import annotations

import pytest

from hopkit.judges import SentenceSplitter, SyntokSplitter
from hopkit.judges.sentences import first_sentence_settled

pytestmark = pytest.mark.unit


@pytest.fixture
def splitter() -> SyntokSplitter:
    return SyntokSplitter()


def test_is_a_sentence_splitter(splitter: SyntokSplitter) -> None:
    assert isinstance(splitter, SentenceSplitter)


@pytest.mark.parametrize("text, first", [
    ("Of these Nosferatu was directed by F.W. Murnau. So the answer is: The Phantom Hour.",
     "Of these Nosferatu was directed by F.W. Murnau."),
    ("The population in 2014 was 1,000.5 thousand. So the answer is: 1,000.5.",
     "The population in 2014 was 1,000.5 thousand."),
    ("The Phantom Hour was inspired by The Cabinet of Dr. Caligari. So the answer is: The Phantom Hour.",
     "The Phantom Hour was inspired by The Cabinet of Dr. Caligari."),
    ("He moved to the U.S. in 1990. He died in 2001.", "He moved to the U.S. in 1990."),
    ("Edward L. Cahn died on August 25, 1963. So the answer is: August 25, 1963.",
     "Edward L. Cahn died on August 25, 1963."),
    ('The debut album of "The Operation M.D." was "We Have an Emergency". So the answer is: The Operation M.D..',
     'The debut album of "The Operation M.D." was "We Have an Emergency".'),
    # a 2WikiMultihopQA film title that opens with an ellipsis
    ('The film "...And God Created Them" was released in 1979. So the answer is: 1979.',
     'The film "...And God Created Them" was released in 1979.'),
    ("The film ...And God Created Them was released in 1979. It is Spanish.",
     "The film ...And God Created Them was released in 1979."),
])
def test_first_sentence(splitter: SyntokSplitter, text: str, first: str) -> None:
    assert splitter.split(text)[0] == first
    assert splitter.first(text) == first


def test_all_sentences_in_order_with_original_characters(splitter: SyntokSplitter) -> None:
    text = 'Jan de Bont was born in 1943.  Raoul Walsh was "born" in 1887. Thus, Raoul Walsh was born first'
    assert splitter.split(text) == ["Jan de Bont was born in 1943.", 'Raoul Walsh was "born" in 1887.',
                                    "Thus, Raoul Walsh was born first"]


def test_newline_ends_a_sentence(splitter: SyntokSplitter) -> None:
    assert splitter.split("First line without period\nSecond line.") == ["First line without period",
                                                                        "Second line."]


@pytest.mark.parametrize("blank", ["", "   ", "\n\n"])
def test_blank_text_has_no_sentence(splitter: SyntokSplitter, blank: str) -> None:
    assert splitter.split(blank) == []
    assert splitter.first(blank) == ""


@pytest.mark.parametrize("text, settled", [
    ("Murnau was born in 1888.", False),
    ("Murnau was born in 1888. He", False),  # one word of the next sentence is not enough
    ("Murnau was born in 1888. He was", True),
    ("The film was directed by F.W. Murnau and", False),
    ("He moved to the U.S. Army base. So the", True),
    ("One. Two. Three", True),
    ('The film "...And God Created', False),  # the ellipsis opens a title, not a new sentence
    ("", False),
])
def test_first_sentence_settled(splitter: SyntokSplitter, text: str, settled: bool) -> None:
    assert first_sentence_settled(splitter, text) is settled
