"""parse_yes_no: a judge's verdict as small models write it; text without one is never guessed."""

import pytest

from hopkit.parsing import ParseError, parse_yes_no

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("text", ["Yes", "yes.", " **Yes**", "YES, the prediction names Paris.", "Answer: Yes",
                                  "Output - yes", "True", "The prediction implies it, so yes."])
def test_yes(text: str) -> None:
    assert parse_yes_no(text) is True


@pytest.mark.parametrize("text", ["No", "no.", "\n\nNo, it names Lyon.", "Verdict: NO", "false",
                                  "It does not imply the answer. No"])
def test_no(text: str) -> None:
    assert parse_yes_no(text) is False


@pytest.mark.parametrize("text, detail", [("", "neither"), ("I cannot tell.", "neither"),
                                          ("Yesterday's answer", "neither"),
                                          ("Maybe yes, maybe no", "both"), ("Nothing known", "neither")])
def test_no_verdict_is_an_error_keeping_the_text(text: str, detail: str) -> None:
    with pytest.raises(ParseError) as caught:
        parse_yes_no(text)
    assert caught.value.raw == text and detail in caught.value.detail
