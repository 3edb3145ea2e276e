"""The budgeted paragraph collection of IRCoT."""

from __future__ import annotations

import pytest

from hopkit.errors import ConfigError
from hopkit.methods.paragraph_collection import Admission, ParagraphCollection
from hopkit.records import Paragraph

pytestmark = pytest.mark.unit

A = Paragraph(1, "Mack Rides", "Mack Rides GmbH & Co KG is a German company that builds amusement rides.")
B = Paragraph(2, "Germany", "Germany is a country in Central Europe.")
C = Paragraph(3, "Walibi Holland", "Walibi Holland is an amusement park.")
D = Paragraph(4, "Gravity", "Gravity is a fundamental interaction.")


def test_keeps_order_and_reports_admissions() -> None:
    collection = ParagraphCollection(budget=5)
    assert collection.extend([B, A, C]) == [B, A, C]
    assert collection.ids == (2, 1, 3)
    assert collection.paragraphs == (B, A, C)
    assert len(collection) == 3


def test_same_id_or_same_title_and_text_is_a_duplicate() -> None:
    collection = ParagraphCollection()
    collection.add(A)
    assert collection.add(A) is Admission.DUPLICATE
    assert collection.add(Paragraph(99, A.title, A.text)) is Admission.DUPLICATE
    assert collection.ids == (1,)


def test_near_duplicates_need_both_title_and_text_close() -> None:
    collection = ParagraphCollection()
    collection.add(A)
    near = Paragraph(5, "Mack Rides.", A.text.replace("German", "german"))
    assert collection.add(near) is Admission.NEAR_DUPLICATE
    same_text_other_title = Paragraph(6, "Mack Rides (company history)", A.text)
    assert collection.add(same_text_other_title) is Admission.ADDED
    same_title_other_text = Paragraph(7, "Mack Rides", "A family business founded in Waldkirch in 1780.")
    assert collection.add(same_title_other_text) is Admission.ADDED


def test_threshold_is_configurable() -> None:
    collection = ParagraphCollection(near_duplicate_threshold=100.0)
    collection.add(A)
    assert collection.add(Paragraph(5, "Mack Rides.", A.text + " ")) is Admission.ADDED


def test_long_paragraphs_are_skipped() -> None:
    collection = ParagraphCollection(max_words=5)
    assert collection.add(Paragraph(8, "Long", "one two three four five six")) is Admission.TOO_LONG
    assert collection.add(Paragraph(9, "Short", "one two three four five")) is Admission.ADDED


def test_budget_full_keeps_the_earliest() -> None:
    collection = ParagraphCollection(budget=2)
    assert collection.extend([A, B, C, D]) == [A, B]
    assert collection.is_full
    assert collection.add(C) is Admission.BUDGET_FULL
    assert collection.ids == (1, 2)


def test_admission_changes_nothing() -> None:
    collection = ParagraphCollection()
    assert collection.admission(A) is Admission.ADDED
    assert len(collection) == 0


@pytest.mark.parametrize("options", [{"budget": 0}, {"max_words": 0}, {"near_duplicate_threshold": 0.0},
                                     {"near_duplicate_threshold": 101.0}])
def test_bad_options(options: dict) -> None:
    with pytest.raises(ConfigError):
        ParagraphCollection(**options)
