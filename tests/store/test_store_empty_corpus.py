"""An empty corpus is refused, so it never takes a dataset name."""

from __future__ import annotations

from typing import Callable

import pytest

from hopkit.errors import StoreError
from hopkit.records import Corpus
from hopkit.store import Store

pytestmark = pytest.mark.unit


def test_an_empty_corpus_is_refused_and_the_name_stays_free(store: Store,
                                                            make_corpus: Callable[..., Corpus]) -> None:
    """Issue item 11: an empty dataset was stored and then blocked ingesting the real data under its name."""
    with pytest.raises(StoreError, match="'toy' is empty .*nothing stored"):
        store.add_corpus(Corpus("toy", (), ()))
    assert "toy" not in store.datasets()
    store.add_corpus(make_corpus("toy"))  # no replace needed
    assert "toy" in store.datasets()
