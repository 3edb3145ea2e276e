"""IRCoT's next retrieval query: the last factual CoT sentence, without wh-words."""

from __future__ import annotations

import pytest

from hopkit.methods.ircot.query import is_reasoning_sentence, next_query, remove_wh_words

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("sentence", [
    "Thus, Raoul Walsh was born first.", "thus Raoul Walsh was born first.", "So the answer is: no.",
    "So, they differ.", "That is, it has 4 members.", "Therefore, they share it.", "Hence it is older.",
    "Milan had existed for 1990 - 1899 = 91 years.", "The total is 1,200 + 3.5 = 1,203.5.",
])
def test_reasoning_sentences(sentence: str) -> None:
    assert is_reasoning_sentence(sentence)


@pytest.mark.parametrize("sentence", [
    "Sony is a Japanese company.", "Sonic was created in 1991.", "Hencely Park is in Leeds.",
    "Mack Rides is a German company.", "Route 13 - the highway - is long.", "The score was 3-2.",
])
def test_factual_sentences(sentence: str) -> None:
    assert not is_reasoning_sentence(sentence)


def test_remove_wh_words() -> None:
    assert remove_wh_words("Who is the director of what film, and when does it air?") == \
        "the director of film, and it air?"
    assert remove_wh_words("Which") == ""
    assert remove_wh_words("Isabel Whoever") == "Isabel Whoever"


def test_question_is_the_first_query() -> None:
    assert next_query("Where was Lost Gravity manufactured?", []) == "was Lost Gravity manufactured?"


def test_last_factual_sentence_is_the_query() -> None:
    sentences = ["Lost Gravity was made by Mack Rides.", "Mack Rides is German.", "Thus, it is German."]
    assert next_query("Q?", sentences) == "Mack Rides German."


def test_only_reasoning_sentences_fall_back_to_the_question() -> None:
    assert next_query("When was Milan founded?", ["Thus, 1990 - 1899 = 91.", "So it is 91."]) == "was Milan founded?"


def test_nothing_left_gives_an_empty_query() -> None:
    assert next_query("What?", []) == ""
    assert next_query("Q", ["Which is what?"]) == ""


def test_a_model_number_of_a_hundred_thousand_digits_is_read_in_bounded_time() -> None:
    """Issue 70's fuzz: the equation search was tried at every digit of a model's long number and took
    quadratic time (4 minutes for IRCoT's three questions on 5,000-digit numbers); a search of a number of
    100,000 digits must now end well within the bound (the old pattern needs hours). In a child process,
    as the regular expression engine holds the interpreter while it searches."""
    import subprocess
    import sys

    script = ("from hopkit.methods.ircot.query import is_reasoning_sentence as r; d = '9' * 100_000; "
              "print([r(d), r(f'{d} - {d} x'), r(f'It is {d}1 - 1 = {d}.')])")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "[False, False, True]", done.stderr[-500:]
