"""An empty dataset file is refused with a DataError naming it, in every format."""

from __future__ import annotations

from pathlib import Path

import pytest

from hopkit.data.registry import load_dataset
from hopkit.errors import DataError

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("dataset", "file_name", "content"),
    [
        ("jsonl", "empty.jsonl", ""),
        ("jsonl", "blank.jsonl", "\n\n  \n"),
        ("musique", "musique.jsonl", ""),
        ("ircot", "ircot.jsonl", ""),
        ("hotpotqa", "hotpot.json", "[]"),
        ("2wikimultihopqa", "dev.json", "[]"),
        ("iirc", "iirc.json", "[]"),
    ],
)
def test_a_file_with_no_questions_is_a_data_error_naming_it(tmp_path: Path, dataset: str, file_name: str,
                                                          content: str) -> None:
    """Issue item 11: an empty file was loaded as zero questions (and then took the name in the store)."""
    path = tmp_path / file_name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(DataError, match="no questions") as caught:
        load_dataset(dataset, path)
    assert str(path) in str(caught.value) and caught.value.path == str(path)
