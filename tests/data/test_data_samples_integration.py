"""Every benchmark sample in $HOPKIT_DATA_DIR loads, keeps its gold, and pools into a smaller corpus."""

from __future__ import annotations

import os

import pytest

from hopkit.data import load_dataset, pool_corpus, sample_path

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not os.environ.get("HOPKIT_DATA_DIR"),
                       reason="HOPKIT_DATA_DIR is not set: point it at the benchmark samples folder to run this"),
]

SAMPLED = ["hotpotqa", "ircot", "musique", "2wikimultihopqa", "strategyqa"]


@pytest.mark.parametrize("name", SAMPLED)
def test_sample_loads_with_gold_and_pools_smaller(name: str) -> None:
    examples = load_dataset(name, sample_path(name))
    assert len(examples) == 100
    assert len({e.id for e in examples}) == 100
    for example in examples:
        assert example.question and example.answers and all(example.answers)
        assert any(p.is_supporting for p in example.context), example.id
    corpus = pool_corpus(name, examples)
    assert len(corpus.paragraphs) < sum(len(e.context) for e in examples)
    assert [p.id for p in corpus.paragraphs] == list(range(len(corpus.paragraphs)))
    for query in corpus.queries:
        assert query.gold_paragraph_ids, query.id
        assert all(0 <= i < len(corpus.paragraphs) for i in query.gold_paragraph_ids)


def test_hotpotqa_sample_has_two_gold_paragraphs_and_yes_no_answers() -> None:
    examples = load_dataset("hotpotqa", sample_path("hotpotqa"))
    assert all(sum(p.is_supporting for p in e.context) == 2 for e in examples)
    assert {e.answer_type for e in examples} == {"span", "yes_no"}
    assert all(e.answers[0] in ("yes", "no") for e in examples if e.answer_type == "yes_no")


def test_musique_sample_keeps_aliases_and_twenty_paragraphs() -> None:
    examples = load_dataset("musique", sample_path("musique"))
    assert all(len(e.context) == 20 for e in examples)
    assert any(len(e.answers) > 1 for e in examples)


def test_strategyqa_sample_answers_are_yes_or_no() -> None:
    examples = load_dataset("strategyqa", sample_path("strategyqa"))
    assert {e.answers for e in examples} == {("yes",), ("no",)}


def test_sample_subset_is_reproducible() -> None:
    first = [e.id for e in load_dataset("musique", sample_path("musique"), limit=10, seed=3)]
    assert first == [e.id for e in load_dataset("musique", sample_path("musique"), limit=10, seed=3)]
    assert len(first) == 10
