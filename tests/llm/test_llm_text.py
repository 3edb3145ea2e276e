import pytest

from hopkit.llm.text import cut_at_stop, estimate_tokens

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("text", "stop", "expected"),
    [
        ("one. two\nthree", ["\n"], "one. two"),
        ("abc STOP def END", ["END", "STOP"], "abc "),  # earliest occurrence wins, not list order
        ("nothing here", ["\n\n"], "nothing here"),
        ("keep all", [], "keep all"),
        ("empty stop ignored", [""], "empty stop ignored"),
        ("\nstarts with stop", ["\n"], ""),
    ],
)
def test_cut_at_stop(text: str, stop: list[str], expected: str) -> None:
    assert cut_at_stop(text, stop) == expected


def test_estimate_tokens_counts_word_pieces() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("   \n") == 0
    assert estimate_tokens("the cat") == 2
    assert estimate_tokens("Paris, 1889.") == 1 + 1 + 4 + 1  # "Paris" "," four digits "."
    assert estimate_tokens("internationalization") == 4  # 20 letters: 1 + 19 // 6


def test_estimate_tokens_is_near_four_characters_per_token_on_prose() -> None:
    prose = ("Wikipedia Title: John Lennon\nJohn Winston Ono Lennon was an English singer, songwriter "
             "and musician who gained worldwide fame as the founder, co-lead vocalist and rhythm "
             "guitarist of the Beatles. ") * 10
    ratio = len(prose) / estimate_tokens(prose)
    assert 3.0 < ratio < 5.5
